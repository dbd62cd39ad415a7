import { performance } from 'node:perf_hooks';
import type { LeaseElector } from './lease-elector';
import { fencedCheckpoint, requireHolding } from './lease-guard';

/** Options of {@link coalescedCheckpoint}. */
export interface CoalescedCheckpointOptions {
  /** How long one proof through Redis covers later calls. @defaultValue the lease's retry period */
  windowMs?: number;
  /** Monotonic ms. @defaultValue `performance.now` */
  now?: () => number;
  /** Epoch ms written into the act. @defaultValue `Date.now` */
  wallClock?: () => number;
  /** @defaultValue {@link fencedCheckpoint} */
  checkpoint?: typeof fencedCheckpoint;
}

/**
 * A checkpoint for frequent acts (a heartbeat per runner, a delivery per ticket): every call checks the
 * holding locally (which already stops a holder before its TTL can lapse), and at most one per window
 * and token goes through the fence in Redis. The renewal proves the holding to Redis once per retry
 * period anyway, so a proof per act would only add a Redis round trip to each one.
 */
export function coalescedCheckpoint(
  elector: Pick<LeaseElector, 'holding' | 'keys' | 'timings' | 'redis'>,
  act: string,
  options: CoalescedCheckpointOptions = {},
): () => Promise<void> {
  const windowMs = options.windowMs ?? elector.timings.retryPeriodMs;
  const now = options.now ?? (() => performance.now());
  const checkpoint = options.checkpoint ?? fencedCheckpoint;
  let proven: { token: number; at: number } | undefined;
  let inFlight: { token: number; done: Promise<void> } | undefined;
  return async () => {
    const { token } = requireHolding(elector);
    if (proven?.token === token && now() - proven.at < windowMs) return;
    if (inFlight?.token !== token) {
      const started = now();
      const done = checkpoint(elector as LeaseElector, act, options.wallClock).then(() => {
        proven = { token, at: started };
      });
      inFlight = { token, done: done.finally(() => (inFlight = undefined)) };
    }
    await inFlight.done;
  };
}
