import { UNDELIVERED_TICKET_STATES, type DeliverTicket, type DeliveryErrorKind } from '@sandbox/protocol';
import { UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import { backoffDelay } from '@sandbox/service-kit';
import { retryDelay } from '../delivery/backoff';
import type { RedeemerClient } from '../delivery/redeemer-client';
import { RecordField } from '../store/ticket-record';
import type { TicketStore } from '../store/ticket-store';

/**
 * A delivery that should be tried again after `delayMs` (the worker's backoff strategy reads it). The
 * message names the category only: BullMQ stores it with the job.
 */
export class RetryDeliveryError extends Error {
  override readonly name = 'RetryDeliveryError';
  constructor(
    readonly kind: DeliveryErrorKind,
    readonly delayMs: number,
  ) {
    super(`delivery failed (${kind}); retrying in ${delayMs} ms`);
  }
}

/** What a delivery job ended with, for logs and metrics. */
export type DeliveryOutcome =
  'accepted' | 'duplicate' | 'rejected' | 'expired_undelivered' | 'skipped' | 'missing';

/** Dependencies of {@link createDeliverTicketHandler}. */
export interface DeliverTicketDeps {
  readonly store: TicketStore;
  readonly redeemer: RedeemerClient;
  readonly logger: Logger;
  readonly now: () => number;
  readonly backoff: { baseMs: number; capMs: number; random?: () => number };
  /** Called once per delivery attempt and final result. */
  readonly observe?: (event: { outcome: DeliveryOutcome | DeliveryErrorKind; latencyMs?: number }) => void;
}

const OWED = UNDELIVERED_TICKET_STATES;

/**
 * The `deliver-ticket` processor. Reads the record (the job holds only the hash) and marks the attempt
 * in one script; does nothing for a ticket already acknowledged or finished (a stale or duplicate job);
 * ends it as `expired_undelivered` once its deadline passed; otherwise sends it with the hash as idempotency key, and
 * records the answer: acknowledged → `accepted`, refused for good → `rejected` (job fails unrecoverably),
 * anything else → retried with capped jittered backoff, never past the deadline.
 */
export function createDeliverTicketHandler(deps: DeliverTicketDeps) {
  const { store, logger } = deps;
  const observe = deps.observe ?? (() => undefined);
  return async ({ ticketHash }: DeliverTicket): Promise<DeliveryOutcome> => {
    const started = deps.now();
    // One round trip reads the record and marks the attempt (or finds it expired, not owed, missing).
    const attempt = await store.beginDelivery(ticketHash, OWED, started);
    if (attempt.result === 'missing') {
      logger.error({ ticketHash }, 'delivery job without a ticket record');
      return 'missing';
    }
    if (attempt.result === 'refused') return 'skipped';
    const { record } = attempt;
    if (attempt.result === 'expired') {
      await store.transition(ticketHash, 'expired_undelivered', OWED, started);
      logger.warn({ ticketHash, attempts: record.attempts }, 'ticket expired before the redeemer took it');
      observe({ outcome: 'expired_undelivered' });
      return 'expired_undelivered';
    }
    const result = await deps.redeemer.deliver(record.ticket);
    const now = deps.now();
    if (result.kind === 'accepted') {
      const outcome = result.duplicate ? 'duplicate' : 'accepted';
      // Not awaited, so that this script and BullMQ's move to completed (next on the same connection)
      // share one round trip, one AOF fsync: Redis runs them in order, so the record is acknowledged
      // before its job completes. Should the script fail alone, the job completes anyway and
      // reconciliation gives the still-owed ticket a new job (the redeemer dedupes by hash).
      store.transition(ticketHash, 'accepted', OWED, now, { [RecordField.acceptedAt]: String(now) }).then(
        (done) => {
          if (done.result === 'ok') observe({ outcome, latencyMs: now - record.receivedAt });
        },
        (error: unknown) =>
          logger.error({ err: error, ticketHash }, 'could not record an acknowledged delivery'),
      );
      return outcome;
    }
    if (result.kind === 'rejected') {
      const reason = `redeemer refused the ticket (HTTP ${result.status}, ${result.reason})`;
      await store.transition(ticketHash, 'rejected', OWED, now, { [RecordField.reason]: reason });
      logger.error(
        { ticketHash, status: result.status, reason: result.reason },
        'redeemer rejected a ticket',
      );
      observe({ outcome: 'rejected' });
      throw new UnrecoverableError(reason);
    }
    await store.annotate(ticketHash, { [RecordField.lastError]: result.error });
    observe({ outcome: result.error });
    const delayMs = retryDelay({
      attempts: record.attempts + 1,
      baseMs: deps.backoff.baseMs,
      capMs: deps.backoff.capMs,
      now,
      deadlineAt: record.deadlineAt,
      ...(result.retryAfterMs === undefined ? {} : { minimumMs: result.retryAfterMs }),
      ...(deps.backoff.random === undefined ? {} : { random: deps.backoff.random }),
    });
    logger.warn(
      { ticketHash, error: result.error, attempts: record.attempts + 1, delayMs },
      'delivery failed',
    );
    throw new RetryDeliveryError(result.error, delayMs);
  };
}

/** The worker's backoff strategy: the delay the processor chose, or a capped exponential fallback. */
export function deliveryBackoffStrategy(capMs: number) {
  return (attemptsMade: number, _type?: string, error?: Error): number => {
    if (error instanceof RetryDeliveryError) return error.delayMs;
    // Redis hiccups and the like: retry soon, but not in a tight loop.
    return backoffDelay(attemptsMade, { initialMs: 1_000, maxMs: capMs, jitter: 'none' });
  };
}
