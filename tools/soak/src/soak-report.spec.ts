import { describe, expect, it } from '@jest/globals';
import { formatReport, percentile, summarizeFaults, type FaultRecord, type SoakReport } from './soak-report';

const fault = (kind: FaultRecord['kind'], recoveryMs?: number, skipped?: string): FaultRecord => ({
  kind,
  target: 'adapter',
  at: '2026-01-01T00:00:00.000Z',
  atMs: 1_000,
  durationMs: 0,
  ...(recoveryMs === undefined ? {} : { recoveryMs }),
  ...(skipped === undefined ? {} : { skipped }),
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeUndefined();
  });
});

describe('summarizeFaults', () => {
  it('counts injected, skipped and unrecovered faults per kind and times recovery', () => {
    const summary = summarizeFaults([
      fault('kill-member', 2_000),
      fault('kill-member', 4_000),
      fault('kill-member'),
      fault('kill-app-process', undefined, 'no running instance'),
    ]);
    expect(summary['kill-member']).toEqual({
      injected: 3,
      skipped: 0,
      recovered: 2,
      unrecovered: 1,
      recoveryP50Ms: 2_000,
      recoveryP99Ms: 4_000,
    });
    expect(summary['kill-app-process']).toMatchObject({ injected: 0, skipped: 1 });
    expect(summary.drain).toMatchObject({ injected: 0, recoveryP50Ms: undefined });
  });
});

describe('formatReport', () => {
  it('prints the seed, every kind, the ledger, each violation and the leftovers', () => {
    const report: SoakReport = {
      seed: 42,
      minutes: 3,
      startedAt: 'a',
      endedAt: 'b',
      interrupted: true,
      faults: summarizeFaults([fault('drain', 1_500)]),
      faultLog: [],
      violations: [{ invariant: 'drain-terminal', atMs: 9_000, detail: 'drain d1 still withdrawing' }],
      leftovers: ['netns sok-1'],
      clients: { sessions: 5, failures: 1, held: 3, cut: 1, lastErrors: [] },
    };
    const text = formatReport(report);
    expect(text).toContain('seed 42, 3 min, interrupted');
    expect(text).toMatch(/drain\s+1\s+0\s+1\s+1\.5s/);
    expect(text).toContain('winners: ledger not read');
    expect(text).toContain('5 completed, 1 failed; 3 sessions held with a stream, 1 of them cut early');
    expect(text).toContain('9.0s drain-terminal: drain d1 still withdrawing');
    expect(text).toContain('left on the host: netns sok-1');
  });
});
