import { describe, expect, it } from '@jest/globals';
import { figureProblem, formatFigure, parseFigure, percentile, unitOfFigureName } from './bench-figure';

describe('unitOfFigureName', () => {
  it('reads the unit off the name suffix', () => {
    expect(unitOfFigureName('create_to_discovery_p50_ms')).toBe('ms');
    expect(unitOfFigureName('adapter_cpu_percent')).toBe('%');
    expect(unitOfFigureName('adapter_rss_max_mb')).toBe('MB');
    expect(unitOfFigureName('adapter_allocated_per_heartbeat_kb')).toBe('KB');
    expect(unitOfFigureName('queue_roundtrip_jobs_per_s')).toBe('jobs/s');
    expect(unitOfFigureName('create_to_discovery_floor_ratio')).toBe('ratio');
    expect(unitOfFigureName('adapter_register_256_s')).toBe('s');
  });

  it('refuses names off the convention', () => {
    expect(unitOfFigureName('handoff.intake.throughput')).toBeUndefined();
    expect(unitOfFigureName('adapter_cpu_share')).toBeUndefined();
    expect(unitOfFigureName('Adapter_cpu_percent')).toBeUndefined();
    expect(unitOfFigureName('latency_ms_')).toBeUndefined();
    expect(unitOfFigureName('jobs_per_s')).toBeUndefined();
    expect(unitOfFigureName('ms')).toBeUndefined();
  });
});

describe('formatFigure and parseFigure', () => {
  it('round-trips a figure with its sample count', () => {
    const line = formatFigure('create_to_discovery_p50_ms', 412.04, 20);
    expect(line).toBe('create_to_discovery_p50_ms: 412.0 ms (n=20)');
    expect(parseFigure(line)).toEqual({
      name: 'create_to_discovery_p50_ms',
      value: 412,
      unit: 'ms',
      samples: 20,
    });
    expect(formatFigure('gvisor_to_native_ratio', 0.41234, 1)).toBe(
      'gvisor_to_native_ratio: 0.412 ratio (n=1)',
    );
    expect(formatFigure('queue_roundtrip_jobs_per_s', 12345.6, 5000)).toBe(
      'queue_roundtrip_jobs_per_s: 12346 jobs/s (n=5000)',
    );
  });

  it('throws on a name off the convention', () => {
    expect(() => formatFigure('latency', 1, 1)).toThrow(/area_metric_unit/);
  });

  it('parses older lines without a count and NaN values, and ignores other output', () => {
    expect(parseFigure('  proxy.p99: 0.42 ms  ')).toEqual({
      name: 'proxy.p99',
      value: 0.42,
      unit: 'ms',
      samples: undefined,
    });
    expect(parseFigure('x_p50_ms: NaN ms (n=0)')?.value).toBeNaN();
    expect(parseFigure('starting redis on 6390')).toBeUndefined();
    expect(parseFigure('latency: fast ms')).toBeUndefined();
    expect(parseFigure('latency: 12')).toBeUndefined();
  });
});

describe('figureProblem', () => {
  it('names what is off the convention', () => {
    expect(figureProblem({ name: 'a_p50_ms', value: 1, unit: 'ms', samples: 3 })).toBeUndefined();
    expect(figureProblem({ name: 'a.p50', value: 1, unit: 'ms', samples: 3 })).toMatch(/area_metric_unit/);
    expect(figureProblem({ name: 'a_p50_ms', value: 1, unit: 's', samples: 3 })).toMatch(/does not match/);
    expect(figureProblem({ name: 'a_p50_ms', value: 1, unit: 'ms', samples: undefined })).toMatch(/n=/);
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const samples = Array.from({ length: 20 }, (_, i) => 20 - i);
    expect(percentile(samples, 50)).toBe(10);
    expect(percentile(samples, 95)).toBe(19);
    expect(percentile(samples, 100)).toBe(20);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile([], 50)).toBeNaN();
  });
});
