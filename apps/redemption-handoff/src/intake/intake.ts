import {
  UNDELIVERED_TICKET_STATES,
  type TicketIntakeResult,
  type TicketState,
  type WinningTicketIntakeResponse,
} from '@sandbox/protocol';
import { orRedisUnavailable, type DurableWriter } from '@sandbox/queue';
import { UnavailableError } from '@sandbox/service-kit';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { addDeliveryJobs } from '../jobs/delivery-job';
import type { TicketStore } from '../store/ticket-store';
import type { Screened, ScreenedTicket } from './ticket-screen';

/** Dependencies of {@link createIntake}. The store and the queue must share the durable connection. */
export interface IntakeDeps {
  readonly store: TicketStore;
  readonly queue: Queue;
  readonly durable: DurableWriter<Redis>;
  readonly screen: (element: unknown, index: number, now: number) => Screened;
  /** False while Redis cannot confirm durable writes: intake answers 503. */
  readonly isDurable: () => boolean;
  readonly now: () => number;
  readonly onResults?: (results: readonly TicketIntakeResult[]) => void;
}

/** Intake of one batch: every ticket judged on its own, the valid ones stored durably before the answer. */
export type Intake = (elements: readonly unknown[]) => Promise<WinningTicketIntakeResponse>;

const undelivered = new Set<TicketState>(UNDELIVERED_TICKET_STATES);

/**
 * Creates the intake. The answer is sent only once every accepted ticket's record and delivery job are
 * on disk (one durable write covering both); a ticket seen before answers `duplicate` and gets its job
 * back if it is still owed a delivery (a crash between record and job is repaired by the retry).
 */
export function createIntake(deps: IntakeDeps): Intake {
  return async (elements) => {
    const now = deps.now();
    const results: TicketIntakeResult[] = [];
    const valid: ScreenedTicket[] = [];
    const seen = new Set<string>();
    elements.forEach((element, index) => {
      const screened = deps.screen(element, index, now);
      if (screened.kind === 'rejected') {
        results[index] = screened.result;
        return;
      }
      const hash = screened.value.ticket.ticketHash;
      if (seen.has(hash)) results[index] = { index, status: 'duplicate', ticketHash: hash };
      else {
        seen.add(hash);
        valid.push(screened.value);
      }
    });
    if (valid.length > 0) await storeValid(deps, valid, now, results);
    deps.onResults?.(results);
    return { results };
  };
}

async function storeValid(
  deps: IntakeDeps,
  valid: ScreenedTicket[],
  now: number,
  results: TicketIntakeResult[],
) {
  if (!deps.isDurable()) throw new UnavailableError('Redis cannot confirm durable writes now');
  const outcomes = await writeDurably(deps, async () => {
    const created = await deps.store.createMany(
      valid.map(({ ticket, window }) => ({
        ticket,
        receivedAt: now,
        windowStart: window.startMs,
        deadlineAt: window.deadlineMs,
      })),
    );
    const owed = valid.filter(
      (_, i) => created[i] === 'created' || undelivered.has(created[i] as TicketState),
    );
    await addDeliveryJobs(
      deps.queue,
      owed.map(({ ticket }) => ticket.ticketHash),
    );
    return created;
  });
  valid.forEach(({ index, ticket }, i) => {
    const status = outcomes[i] === 'created' ? 'accepted' : 'duplicate';
    results[index] = { index, status, ticketHash: ticket.ticketHash };
  });
}

function writeDurably<T>(deps: IntakeDeps, fn: () => Promise<T>): Promise<T> {
  return orRedisUnavailable(() => deps.durable.write(fn));
}
