import { z } from 'zod';

/** The redeemer-sim's `/sim/ledger` view. */
export const SimLedgerSchema = z.object({
  block: z.string(),
  round: z.string(),
  tickets: z.array(
    z.object({
      ticketHash: z.string(),
      sender: z.string(),
      faceValue: z.string(),
      deliveries: z.int(),
      submissions: z.int(),
      outcome: z.string().optional(),
    }),
  ),
});
export type SimLedger = z.infer<typeof SimLedgerSchema>;

export async function readSimLedger(redeemerUrl: string): Promise<SimLedger> {
  const response = await fetch(`${redeemerUrl}/sim/ledger`, { signal: AbortSignal.timeout(30_000) });
  return SimLedgerSchema.parse(await response.json());
}

/** The comparison of an independent ledger (every winner produced) with the redeemer's store. */
export interface LedgerComparison {
  readonly produced: number;
  /** Produced winners the redeemer never received. */
  readonly lost: string[];
  /** Winners submitted on chain more than once. */
  readonly submittedTwice: string[];
  /** Winners received but never decided (no outcome). */
  readonly undecided: string[];
  /** Tickets at the redeemer that nobody produced. */
  readonly unknown: string[];
  /** Deliveries beyond the first (harmless duplicates the redeemer absorbed). */
  readonly duplicateDeliveries: number;
  readonly outcomes: Record<string, number>;
}

export function compareLedgers(produced: ReadonlySet<string>, ledger: SimLedger): LedgerComparison {
  const atRedeemer = new Map(ledger.tickets.map((ticket) => [ticket.ticketHash, ticket]));
  const outcomes: Record<string, number> = {};
  for (const ticket of ledger.tickets) {
    const key = ticket.outcome ?? 'none';
    outcomes[key] = (outcomes[key] ?? 0) + 1;
  }
  return {
    produced: produced.size,
    lost: [...produced].filter((hash) => !atRedeemer.has(hash)),
    submittedTwice: ledger.tickets
      .filter((ticket) => ticket.submissions > 1)
      .map((ticket) => ticket.ticketHash),
    undecided: ledger.tickets
      .filter((ticket) => ticket.outcome === undefined)
      .map((ticket) => ticket.ticketHash),
    unknown: ledger.tickets
      .filter((ticket) => !produced.has(ticket.ticketHash))
      .map((ticket) => ticket.ticketHash),
    duplicateDeliveries: ledger.tickets.reduce((sum, ticket) => sum + ticket.deliveries - 1, 0),
    outcomes,
  };
}
