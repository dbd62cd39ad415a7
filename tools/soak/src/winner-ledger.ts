import { z } from 'zod';

/** The redeemer simulator's `GET /sim/ledger` (per ticket: deliveries, on-chain submissions, outcome). */
export const RedeemerLedgerSchema = z.object({
  tickets: z.array(
    z.object({
      ticketHash: z.string(),
      deliveries: z.int(),
      submissions: z.int(),
      outcome: z.string().optional(),
    }),
  ),
});
export type RedeemerLedger = z.infer<typeof RedeemerLedgerSchema>;

/**
 * The Node simulator's outbox names each winner `<ms>-<sequence>-<ticketHash>.json` (pending, and the
 * same name once moved to `rejected/`); the temporary `.…tmp` file of a write in progress is no winner.
 */
const OUTBOX_NAME = /^\d{15}-\d{6}-(0x[0-9a-f]{64})\.json$/;

/** The ticket hash of an outbox file name, or undefined for anything else in the folder. */
export function winnerOfOutboxName(name: string): string | undefined {
  return OUTBOX_NAME.exec(name)?.[1];
}

/** The ledger kept against the redeemer's records: every ticket and what happened to it. */
export interface LedgerComparison {
  produced: number;
  atRedeemer: number;
  /** Produced, and not at the redeemer. */
  lost: string[];
  /** Submitted on chain more than once. */
  submittedTwice: string[];
  /** At the redeemer, never decided. */
  undecided: string[];
  /** At the redeemer, never seen in Node's outbox. */
  unknown: string[];
  /** Deliveries beyond a ticket's first (duplicates the redeemer absorbed; not a violation). */
  duplicateDeliveries: number;
  outcomes: Record<string, number>;
}

/**
 * The winners Node (the simulator) produced, each with when the soak first saw it. Independent of
 * redemption-handoff: it is filled from Node's outbox folder alone.
 */
export class WinnerLedger {
  readonly #firstSeen = new Map<string, number>();

  /** Records a file name of Node's outbox; returns true when it names a winner not seen before. */
  observe(name: string, atMs: number): boolean {
    const hash = winnerOfOutboxName(name);
    if (hash === undefined || this.#firstSeen.has(hash)) return false;
    this.#firstSeen.set(hash, atMs);
    return true;
  }

  get size(): number {
    return this.#firstSeen.size;
  }

  /**
   * Compares with the redeemer's ledger. A winner first seen after `settledBefore` is still on its way
   * and is not counted lost yet.
   */
  compare(ledger: RedeemerLedger, settledBefore = Number.POSITIVE_INFINITY): LedgerComparison {
    const atRedeemer = new Map(ledger.tickets.map((ticket) => [ticket.ticketHash, ticket]));
    const outcomes: Record<string, number> = {};
    for (const ticket of ledger.tickets) {
      const key = ticket.outcome ?? 'undecided';
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    const settled = [...this.#firstSeen].filter(([, at]) => at < settledBefore).map(([hash]) => hash);
    return {
      produced: this.#firstSeen.size,
      atRedeemer: ledger.tickets.length,
      lost: settled.filter((hash) => !atRedeemer.has(hash)),
      submittedTwice: ledger.tickets.filter((t) => t.submissions > 1).map((t) => t.ticketHash),
      undecided: ledger.tickets.filter((t) => t.outcome === undefined).map((t) => t.ticketHash),
      unknown: ledger.tickets.filter((t) => !this.#firstSeen.has(t.ticketHash)).map((t) => t.ticketHash),
      duplicateDeliveries: ledger.tickets.reduce((sum, t) => sum + Math.max(0, t.deliveries - 1), 0),
      outcomes,
    };
  }
}
