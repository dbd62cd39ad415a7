import { coalescedCheckpoint, fencedCheckpoint, fencedExec } from '@sandbox/lease';
import type { LeaseElector } from '@sandbox/lease';
import type { TicketStore } from '../store/ticket-store';
import type { RedeemerClient } from './redeemer-client';

/**
 * The redeemer client with each call preceded by a checkpoint through the lease's fence: a replica
 * that lost the lease is refused before it delivers (the redeemer is outside Redis, so the call itself
 * cannot be fenced; it is idempotent by ticket hash, which covers the one call a pause can leave in
 * flight). Deliveries share one proof per retry period; each is still checked against the local holding.
 */
export function fenceRedeemerCalls(
  redeemer: RedeemerClient,
  lease: LeaseElector,
  now: () => number,
): RedeemerClient {
  const deliveryCheckpoint = coalescedCheckpoint(lease, 'deliver', { wallClock: now });
  return {
    async deliver(ticket) {
      await deliveryCheckpoint();
      return redeemer.deliver(ticket);
    },
    async outcomes(after, limit) {
      await fencedCheckpoint(lease, 'outcomes', now);
      return redeemer.outcomes(after, limit);
    },
  };
}

/**
 * The store with the outcome cursor written through the fence: two pollers could otherwise move it
 * back (a stale one writing an older position after the new holder advanced it).
 */
export function fenceOutcomeCursor(store: TicketStore, lease: LeaseElector): TicketStore {
  return {
    ...store,
    async writeOutcomeCursor(seq) {
      await fencedExec(lease, [['SET', store.keys.outcomeCursor, seq]]);
    },
  };
}
