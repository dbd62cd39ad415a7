import { describe, expect, it } from '@jest/globals';
import { formatComparison, formatSummary, parseBenchRun, resultFileName, type BenchRun } from './results';
import { formatTable } from './table';

function run(figures: BenchRun['benches'][number]['figures'], load = [1.5, 1, 0.5]): BenchRun {
  return {
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    machine: { cores: 2, loadAverageAtStart: load, loadAverageAtEnd: load, node: 'v24.0.0' },
    benches: [
      { file: 'apps/adapter/src/adapter.bench.ts', exitCode: 0, durationMs: 10, figures, problems: [] },
    ],
  };
}

describe('formatTable', () => {
  it('pads text left-aligned and numbers right-aligned', () => {
    expect(
      formatTable(
        ['figure', 'value'],
        [
          ['a_ms', '1.5'],
          ['longer_ms', '120'],
        ],
      ),
    ).toBe(['figure     value', '---------  -----', 'a_ms         1.5', 'longer_ms    120'].join('\n'));
  });
});

describe('formatSummary', () => {
  it('lists each figure with its unit, count and bench, under the machine line', () => {
    const text = formatSummary(run([{ name: 'adapter_cpu_percent', value: 2.5, unit: '%', samples: 60 }]));
    expect(text.split('\n')[0]).toBe('1 figures; 2 cores; load average at start 1.50 1.00 0.50');
    expect(text).toMatch(/adapter_cpu_percent\s+2\.5\s+%\s+60\s+adapter\.bench\.ts/);
  });
});

describe('formatComparison', () => {
  it('prints the delta and relative change against the earlier run, and new figures as such', () => {
    const before = run([{ name: 'a_p50_ms', value: 800, unit: 'ms', samples: 20 }]);
    const after = run([
      { name: 'a_p50_ms', value: 400, unit: 'ms', samples: 20 },
      { name: 'b_ratio', value: 0.5, unit: 'ratio', samples: 1 },
      { name: 'c_ms', value: null, unit: 'ms', samples: 0 },
    ]);
    const lines = formatComparison(before, after).split('\n');
    expect(lines[2]).toMatch(/^a_p50_ms\s+800\s+400\s+ms\s+-400\s+-50%$/);
    expect(lines[3]).toMatch(/^b_ratio\s+-\s+0\.5\s+ratio$/);
    expect(lines[4]).toMatch(/^c_ms\s+-\s+NaN\s+ms$/);
  });
});

describe('parseBenchRun', () => {
  it('reads a written run back, NaN figures as null', () => {
    const written = run([{ name: 'a_ms', value: Number.NaN, unit: 'ms', samples: 0 }]);
    expect(parseBenchRun(JSON.stringify(written), 'x.json').benches[0]?.figures[0]?.value).toBeNull();
  });

  it('names the file that is not a run', () => {
    expect(() => parseBenchRun('{"startedAt":1}', 'old.json')).toThrow(/old\.json is not a bench run/);
  });
});

describe('resultFileName', () => {
  it('is sortable and has no colons', () => {
    expect(resultFileName(new Date('2026-12-01T18:30:05.123Z'))).toBe('2026-12-01T18-30-05Z.json');
  });
});
