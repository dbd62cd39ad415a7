import {
  MAX_TICKETS_PER_BATCH,
  WinningTicketIntakeResponseSchema,
  type WinningTicket,
} from '@sandbox/protocol';

/**
 * A test stand-in for Node's outbox: keeps every submitted ticket until the handoff acknowledges it
 * (accepted or duplicate in a 2xx answer), posting batches of at most 100 and retrying every failure.
 */
export interface IntakeClient {
  submit(tickets: readonly WinningTicket[]): void;
  /** Tickets not acknowledged yet. */
  pendingCount(): number;
  /** Hashes the handoff acknowledged. */
  readonly acknowledged: Set<string>;
  /** Hashes the handoff rejected (with the reason). */
  readonly rejected: Map<string, string>;
  /** Batches sent, and how many failed (refused, 5xx, cut connections). */
  readonly stats: { batches: number; failures: number };
  stop(): Promise<void>;
}

export function createIntakeClient(url: string, token: string): IntakeClient {
  const pending = new Map<string, WinningTicket>();
  const acknowledged = new Set<string>();
  const rejected = new Map<string, string>();
  const stats = { batches: 0, failures: 0 };
  let stopped = false;

  const sendOnce = async (): Promise<boolean> => {
    const batch = [...pending.values()].slice(0, MAX_TICKETS_PER_BATCH);
    if (batch.length === 0) return false;
    stats.batches += 1;
    try {
      const response = await fetch(`${url}/v1/winning-tickets`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ tickets: batch }),
        signal: AbortSignal.timeout(10_000),
      });
      const body: unknown = await response.json().catch(() => undefined);
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      for (const result of WinningTicketIntakeResponseSchema.parse(body).results) {
        const ticket = batch[result.index];
        if (!ticket) continue;
        pending.delete(ticket.ticketHash);
        if (result.status === 'rejected') rejected.set(ticket.ticketHash, result.reason);
        else acknowledged.add(ticket.ticketHash);
      }
      return true;
    } catch {
      stats.failures += 1;
      return false;
    }
  };

  const loop = (async () => {
    while (!stopped) {
      const progressed = await sendOnce();
      if (!progressed) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();

  return {
    submit(tickets) {
      for (const ticket of tickets) pending.set(ticket.ticketHash, ticket);
    },
    pendingCount: () => pending.size,
    acknowledged,
    rejected,
    stats,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
