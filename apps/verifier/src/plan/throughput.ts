import type { z } from 'zod';
import type { ThroughputResultSchema } from '@sandbox/protocol';

export type ThroughputResult = z.infer<typeof ThroughputResultSchema>;

/** Throughput of `bytes` over `ms`, with the warm-up bytes that were left out. */
export function throughput(bytes: number, ms: number, warmupBytes: number): ThroughputResult {
  const seconds = Math.max(ms, 0.001) / 1000;
  return {
    bytes,
    seconds: Math.round(seconds * 1e6) / 1e6,
    megabitsPerSecond: Math.round(((bytes * 8) / seconds / 1e6) * 1000) / 1000,
    warmupBytes,
  };
}
