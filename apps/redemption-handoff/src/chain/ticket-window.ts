import type { HandoffConfig } from '../config';

/** When a ticket can be redeemed: from `startMs` (its creation round began) until `deadlineMs`. */
export interface TicketWindow {
  readonly startMs: number;
  readonly deadlineMs: number;
}

/**
 * What the handoff knows of the chain: the redemption window of a ticket, and whether a ticket is
 * already past it (refused at intake). Without a round view nothing is refused and the window runs
 * from receipt for a fixed time.
 */
export interface TicketWindows {
  /** The window of a ticket created in `creationRound` and received at `receivedAtMs`. */
  windowOf(creationRound: bigint, receivedAtMs: number): TicketWindow;
  /** True when the chain would refuse the ticket as expired at `nowMs`. */
  isExpired(creationRound: bigint, nowMs: number): boolean;
}

/** Options of {@link roundTicketWindows}. */
export interface ChainRoundOptions {
  blockMs: number;
  roundBlocks: number;
  genesisMs: number;
  /** The TicketBroker's `ticketValidityPeriod`: redeemable while creationRound + this > current round. */
  validityRounds: number;
}

/**
 * A round view derived from the clock, as node-sim's simulated chain: block = (now - genesis) / blockMs,
 * round = block / roundBlocks. A ticket of round r is redeemable until round r + validityRounds begins.
 */
export function roundTicketWindows(options: ChainRoundOptions): TicketWindows {
  const roundMs = BigInt(options.blockMs) * BigInt(options.roundBlocks);
  const genesis = BigInt(options.genesisMs);
  const validity = BigInt(options.validityRounds);
  const roundStart = (round: bigint): number => {
    const ms = genesis + round * roundMs;
    return ms > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(ms);
  };
  const currentRound = (nowMs: number): bigint => {
    const elapsed = BigInt(Math.max(0, Math.floor(nowMs))) - genesis;
    return elapsed < 0n ? 0n : elapsed / roundMs;
  };
  return {
    windowOf: (creationRound) => ({
      startMs: roundStart(creationRound),
      deadlineMs: roundStart(creationRound + validity),
    }),
    isExpired: (creationRound, nowMs) => creationRound + validity <= currentRound(nowMs),
  };
}

/** No round view: nothing is refused as expired; each ticket gets `validityMs` from its receipt. */
export function fixedTicketWindows(validityMs: number): TicketWindows {
  return {
    windowOf: (_round, receivedAtMs) => ({ startMs: receivedAtMs, deadlineMs: receivedAtMs + validityMs }),
    isExpired: () => false,
  };
}

/** The windows the configuration asks for (CHAIN_VIEW; the schema requires a genesis with `clock`). */
export function ticketWindowsFor(config: HandoffConfig): TicketWindows {
  if (config.CHAIN_VIEW === 'none' || config.CHAIN_GENESIS_MS === undefined)
    return fixedTicketWindows(config.FALLBACK_VALIDITY_MS);
  return roundTicketWindows({
    blockMs: config.CHAIN_BLOCK_MS,
    roundBlocks: config.CHAIN_ROUND_BLOCKS,
    genesisMs: config.CHAIN_GENESIS_MS,
    validityRounds: config.TICKET_VALIDITY_ROUNDS,
  });
}
