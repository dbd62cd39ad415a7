import type { VerifierConfig } from '../config';
import type { Plan } from './plan';

/** The evaluation plan the verifier's configuration sets. */
export function planOf(config: VerifierConfig): Plan {
  return {
    latencyProbes: config.LATENCY_PROBES,
    latencyGapMs: config.LATENCY_GAP_MS,
    transferSeconds: config.TRANSFER_SECONDS,
    warmupSeconds: config.WARMUP_SECONDS,
    maxTransferBytes: config.MAX_TRANSFER_BYTES,
    hashShares: config.HASH_SHARES,
    hashDifficultyBits: config.HASH_DIFFICULTY_BITS,
    runTimeoutMs: config.RUN_TIMEOUT_MS,
  };
}
