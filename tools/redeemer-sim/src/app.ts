import { createHttpApp, type Health, type ServiceLogger, type ServiceMetrics } from '@sandbox/service-kit';
import type { Express } from 'express';
import type { FaultState } from './faults';
import type { SimChain } from './ledger/sim-chain';
import type { TicketChecker } from './ledger/verdict-memo';
import { redeemerRouter } from './routes/redeemer.routes';
import { simRouter } from './routes/sim.routes';
import type { SimStore } from './store/sim-store';

export interface RedeemerSimDeps {
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
  store: SimStore;
  chain: SimChain;
  faults: FaultState;
  check: TicketChecker;
  /** The credential callers must present. Secret. */
  token: string;
  now: () => number;
  recipient?: string;
  redeemNow: () => number;
}

/** The simulator's express app: the redeemer API, the `/sim` controls, probes and metrics. */
export function createApp(deps: RedeemerSimDeps): Express {
  return createHttpApp({
    logger: deps.logger,
    health: deps.health,
    metrics: deps.metrics,
    bodyLimit: '64kb',
    // redemption-handoff polls the outcomes every few seconds.
    isRoutineRequest: ({ method, path }) => method === 'GET' && path === '/v1/outcomes',
    configure: (app) => {
      app.use(
        redeemerRouter({
          store: deps.store,
          faults: deps.faults,
          check: deps.check,
          token: deps.token,
          now: deps.now,
          ...(deps.recipient === undefined ? {} : { recipient: deps.recipient }),
        }),
      );
      app.use(
        simRouter({ store: deps.store, chain: deps.chain, faults: deps.faults, redeemNow: deps.redeemNow }),
      );
    },
  });
}
