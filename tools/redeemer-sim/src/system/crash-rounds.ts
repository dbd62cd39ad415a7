import { waitFor } from '@sandbox/testing';
import type { HandoffStack } from './handoff-stack';
import { createIntakeClient } from './intake-client';
import { compareLedgers, readSimLedger, type LedgerComparison } from './ledger-check';
import { ticketFactory } from './ticket-factory';

/** Where a round injects its crash. */
export const CRASH_KINDS = ['handoff-during-intake', 'handoff-during-delivery', 'redis', 'redeemer'] as const;
export type CrashKind = (typeof CRASH_KINDS)[number];

/** Options of {@link runCrashRounds}. */
export interface CrashRoundsOptions {
  readonly rounds: number;
  readonly seed: number;
  /** Winners produced per round. @defaultValue 60 */
  readonly ticketsPerRound?: number;
  /** Progress lines. */
  readonly log?: (line: string) => void;
}

/** What a run found: the ledger comparison plus per-kind round counts. */
export interface CrashReport extends LedgerComparison {
  readonly rounds: Record<CrashKind, number>;
  readonly acknowledged: number;
  readonly rejectedAtIntake: number;
  readonly failedBatches: number;
}

/** A small deterministic generator (mulberry32), so a failing seed can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function crash(stack: HandoffStack, kind: CrashKind, random: () => number): Promise<void> {
  switch (kind) {
    case 'handoff-during-intake':
      // The batch was just queued: the kill lands before, during or after its durable write.
      await pause(random() * 120);
      await stack.handoff().kill9();
      await stack.startHandoff();
      return;
    case 'handoff-during-delivery':
      await pause(150 + random() * 400);
      await stack.handoff().kill9();
      await stack.startHandoff();
      return;
    case 'redis':
      await pause(random() * 400);
      await stack.redis.kill9();
      await pause(random() * 300);
      await stack.redis.restart();
      return;
    case 'redeemer':
      await pause(random() * 400);
      await stack.redeemer().kill9();
      await stack.startRedeemer();
  }
}

/**
 * Runs crash rounds against a running stack: each round produces winners (the independent ledger),
 * hands them to an outbox-like client, and kills -9 the handoff (during intake or delivery), Redis or the
 * redeemer at a random moment, then restarts it on its data. Afterwards it waits until every winner is
 * acknowledged and decided, and compares the ledger with the redeemer's store.
 */
export async function runCrashRounds(stack: HandoffStack, options: CrashRoundsOptions): Promise<CrashReport> {
  const random = seeded(options.seed);
  const make = ticketFactory({ seed: options.seed });
  const client = createIntakeClient(stack.handoffUrl, stack.intakeToken);
  const produced = new Set<string>();
  const rounds = Object.fromEntries(CRASH_KINDS.map((kind) => [kind, 0])) as Record<CrashKind, number>;
  const perRound = options.ticketsPerRound ?? 60;
  try {
    for (let round = 0; round < options.rounds; round += 1) {
      const kind = CRASH_KINDS[Math.floor(random() * CRASH_KINDS.length)] ?? 'redis';
      const tickets = Array.from({ length: perRound }, () => make());
      for (const ticket of tickets) produced.add(ticket.ticketHash);
      client.submit(tickets);
      await crash(stack, kind, random);
      rounds[kind] += 1;
      options.log?.(
        `round ${round + 1}/${options.rounds}: ${kind}, ${client.pendingCount()} pending at intake`,
      );
    }
    await waitFor(() => client.pendingCount() === 0, {
      description: 'every winner to be acknowledged by the handoff',
      timeoutMs: 180_000,
      intervalMs: 200,
    });
    await waitFor(
      async () => {
        const ledger = await readSimLedger(stack.redeemerUrl);
        const decided = ledger.tickets.filter((ticket) => ticket.outcome !== undefined).length;
        return (
          ledger.tickets.length >= produced.size - client.rejected.size && decided === ledger.tickets.length
        );
      },
      { description: 'every winner to be decided by the redeemer', timeoutMs: 300_000, intervalMs: 500 },
    );
  } finally {
    await client.stop();
  }
  const comparison = compareLedgers(produced, await readSimLedger(stack.redeemerUrl));
  return {
    ...comparison,
    rounds,
    acknowledged: client.acknowledged.size,
    rejectedAtIntake: client.rejected.size,
    failedBatches: client.stats.failures,
  };
}
