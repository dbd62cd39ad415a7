import type { RedemptionOutcome } from '@sandbox/protocol';
import { systemClock } from '@sandbox/service-kit';
import type { Logger } from 'pino';
import type { RedeemerClient } from '../delivery/redeemer-client';
import { RecordField, type TransitionFieldsOf } from '../store/ticket-record';
import { OPEN_STATES, type TicketStore } from '../store/ticket-store';

/** Dependencies of {@link createOutcomePoller}. */
export interface OutcomePollerDeps {
  readonly store: TicketStore;
  readonly redeemer: RedeemerClient;
  readonly logger: Logger;
  readonly now: () => number;
  readonly pageSize: number;
  readonly intervalMs: number;
  /** Waits `ms` unless aborted. @defaultValue `systemClock.sleep` */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly onApplied?: (outcome: RedemptionOutcome, applied: boolean) => void;
}

/** Polls the redeemer's outcome log and records each outcome as the ticket's terminal state. */
export interface OutcomePoller {
  /** Applies every page available now; returns how many outcomes it read. */
  pollOnce(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Creates the poller. Each outcome moves its ticket (from received, delivering or accepted: the answer
 * to a delivery may have been lost) to the terminal state; a ticket already terminal keeps its state
 * and the outcome is kept as `lateOutcome`. The cursor is saved after the page is applied, so a crash
 * re-reads the page and re-applying is a no-op.
 */
export function createOutcomePoller(deps: OutcomePollerDeps): OutcomePoller {
  const sleep = deps.sleep ?? systemClock.sleep;
  const abort = new AbortController();
  let loop: Promise<void> | undefined;

  const fieldsOf = (outcome: RedemptionOutcome): TransitionFieldsOf => ({
    ...(outcome.reason === undefined ? {} : { [RecordField.reason]: outcome.reason }),
    ...(outcome.paidWei === undefined ? {} : { [RecordField.paidWei]: outcome.paidWei }),
    ...(outcome.txHash === undefined ? {} : { [RecordField.txHash]: outcome.txHash }),
  });

  // A page is applied in one pipeline; outcomes contradicting an earlier end are noted afterwards.
  const apply = async (outcomes: readonly RedemptionOutcome[]): Promise<void> => {
    const moves = outcomes.map((outcome) => ({
      hash: outcome.ticketHash,
      target: outcome.outcome,
      from: OPEN_STATES,
      fields: fieldsOf(outcome),
    }));
    const results = await deps.store.transitionMany(moves, deps.now());
    for (const [i, done] of results.entries()) {
      const outcome = outcomes[i] as RedemptionOutcome;
      if (done.result === 'refused' && done.previous !== outcome.outcome) {
        await deps.store.annotate(outcome.ticketHash, { [RecordField.lateOutcome]: outcome.outcome });
        deps.logger.warn(
          { ticketHash: outcome.ticketHash, state: done.previous, outcome: outcome.outcome },
          'redeemer outcome for a ticket that had already ended',
        );
      }
      deps.onApplied?.(outcome, done.result === 'ok');
    }
  };

  const pollOnce = async (): Promise<number> => {
    let read = 0;
    for (;;) {
      const after = await deps.store.readOutcomeCursor();
      const page = await deps.redeemer.outcomes(after, deps.pageSize);
      await apply(page.outcomes);
      if (page.nextAfter > after) await deps.store.writeOutcomeCursor(page.nextAfter);
      read += page.outcomes.length;
      if (page.outcomes.length < deps.pageSize || abort.signal.aborted) return read;
    }
  };

  const run = async (): Promise<void> => {
    let failures = 0;
    while (!abort.signal.aborted) {
      try {
        await pollOnce();
        failures = 0;
      } catch (error) {
        failures += 1;
        // Logged on the first failure and then every 30th, so an outage does not flood the log.
        if (failures % 30 === 1) deps.logger.warn({ err: error, failures }, 'outcome poll failed');
      }
      await sleep(deps.intervalMs, abort.signal);
    }
  };

  return {
    pollOnce,
    start() {
      loop ??= run();
    },
    async stop() {
      abort.abort();
      await loop;
    },
  };
}
