import { describe, expect, it } from '@jest/globals';
import { hashRate } from './hash.step';
import { latencyStats, percentile } from './latency.step';
import { throughput } from './throughput';

describe('measurement arithmetic', () => {
  it('computes min, nearest-rank median and p95, and jitter of consecutive samples', () => {
    const samples = Array.from({ length: 20 }, (_, index) => index + 1);
    expect(latencyStats(samples)).toEqual({ samples: 20, minMs: 1, medianMs: 10, p95Ms: 19, jitterMs: 1 });
    expect(latencyStats([5, 1, 5])).toMatchObject({ minMs: 1, medianMs: 5, jitterMs: 4 });
    expect(percentile([1, 2, 3, 4], 1)).toBe(4);
  });

  it('turns receiver-counted bytes into Mbit/s', () => {
    expect(throughput(12_500_000, 1000, 5)).toEqual({
      bytes: 12_500_000,
      seconds: 1,
      megabitsPerSecond: 100,
      warmupBytes: 5,
    });
  });

  it('estimates hash rate as shares × 2^difficulty over the measured time', () => {
    expect(hashRate(400, 12, 2000)).toEqual({
      shares: 400,
      difficultyBits: 12,
      seconds: 2,
      hashesPerSecond: 819_200,
      relativeStdError: 0.05,
    });
  });
});
