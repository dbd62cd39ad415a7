import { describe, expect, it } from '@jest/globals';
import { parseFigure } from './find-benches';

describe('parseFigure', () => {
  it('reads name, value and unit', () => {
    expect(parseFigure('queue-roundtrip: 1234.5 jobs/s')).toEqual({
      name: 'queue-roundtrip',
      value: 1234.5,
      unit: 'jobs/s',
    });
    expect(parseFigure('  proxy.p99: 0.42 ms  ')).toEqual({ name: 'proxy.p99', value: 0.42, unit: 'ms' });
  });

  it('ignores lines that are not figures', () => {
    expect(parseFigure('starting redis on 6390')).toBeUndefined();
    expect(parseFigure('latency: fast ms')).toBeUndefined();
    expect(parseFigure('latency: 12')).toBeUndefined();
  });
});
