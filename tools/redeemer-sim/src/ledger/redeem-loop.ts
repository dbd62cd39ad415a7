import type { Logger } from 'pino';
import type { SenderFunds, SimStore } from '../store/sim-store';
import { decideRedemption } from './redemption';
import type { SimChain } from './sim-chain';
import type { TicketChecker } from './verdict-memo';

/** Dependencies of {@link createRedeemLoop}. */
export interface RedeemLoopDeps {
  readonly store: SimStore;
  readonly chain: SimChain;
  readonly check: TicketChecker;
  readonly logger: Logger;
  readonly now: () => number;
  readonly intervalMs: number;
  readonly validityRounds: number;
  readonly waitForParamsExpiry: boolean;
  readonly defaultFunds: SenderFunds;
}

/** The simulated redeemer's background work: decide pending tickets, one transaction each. */
export interface RedeemLoop {
  /** Decides what can be decided now; returns the number of outcomes recorded. */
  tick(): number;
  start(): void;
  stop(): void;
}

const BATCH = 200;

export function createRedeemLoop(deps: RedeemLoopDeps): RedeemLoop {
  let timer: NodeJS.Timeout | undefined;
  // One transaction per tick: one fsync for all its decisions, each taken on the funds left by the
  // previous one.
  const tick = (): number => {
    const block = deps.chain.block();
    const round = deps.chain.round();
    const now = deps.now();
    return deps.store.inTransaction(() => {
      let decided = 0;
      for (const { ticket } of deps.store.pending(BATCH)) {
        const view = {
          block,
          round,
          validityRounds: BigInt(deps.validityRounds),
          waitForParamsExpiry: deps.waitForParamsExpiry,
          isUsed: deps.store.isUsed(ticket.ticketHash),
          funds: deps.store.funds(ticket.sender, deps.defaultFunds),
        };
        const decision = decideRedemption(ticket, view, deps.check);
        if (decision && deps.store.decideWithin({ ...decision, hash: ticket.ticketHash }, now)) decided += 1;
      }
      return decided;
    });
  };
  return {
    tick,
    start() {
      timer ??= setInterval(() => {
        try {
          tick();
        } catch (error) {
          deps.logger.error({ err: error }, 'redemption tick failed');
        }
      }, deps.intervalMs);
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
