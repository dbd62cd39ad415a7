// The service's active parts: they run only on the replica holding the lease (see service.ts).
import { TICKET_DELIVERY_QUEUE } from '@sandbox/protocol';
import { createWorker } from '@sandbox/queue';
import type { ServiceRuntime } from '@sandbox/service-kit';
import type { HandoffConfig } from '../config';
import type { RedeemerClient } from '../delivery/redeemer-client';
import { createDeliverTicketHandler, deliveryBackoffStrategy } from '../jobs/deliver-ticket.job';
import { createOutcomePoller } from '../outcomes/outcome-poller';
import type { TicketStore } from '../store/ticket-store';
import type { HandoffMetrics } from './handoff-metrics';
import { reconcile, type ReconcileDeps } from './reconcile';

/** What the delivery side started; stopped together when the lease ends or the process stops. */
export type Stoppable = () => unknown;

/** Reconciles now and every RECONCILE_INTERVAL_MS. */
export async function startReconciliation(
  config: HandoffConfig,
  runtime: ServiceRuntime,
  deps: ReconcileDeps,
  stops: Stoppable[],
) {
  await reconcile(deps);
  const timer = setInterval(() => {
    reconcile(deps).catch((error: unknown) => runtime.logger.warn({ err: error }, 'reconciliation failed'));
  }, config.RECONCILE_INTERVAL_MS);
  stops.push(() => clearInterval(timer));
}

/** The `ticket-delivery` worker and the outcome poller, on the worker connection. */
export function startDelivery(
  config: HandoffConfig,
  runtime: ServiceRuntime,
  deps: { store: TicketStore; redeemer: RedeemerClient; metrics: HandoffMetrics; now: () => number },
  stops: Stoppable[],
): void {
  const { logger } = runtime;
  const handler = createDeliverTicketHandler({
    ...deps,
    logger,
    backoff: { baseMs: config.DELIVERY_BACKOFF_BASE_MS, capMs: config.DELIVERY_BACKOFF_CAP_MS },
    observe: deps.metrics.delivery,
  });
  const worker = createWorker(
    TICKET_DELIVERY_QUEUE,
    { 'deliver-ticket': handler },
    {
      connection: deps.store.redis,
      prefix: config.QUEUE_PREFIX,
      logger,
      concurrency: config.DELIVERY_CONCURRENCY,
      tuning: {
        limiter: { max: config.DELIVERY_RATE_MAX, duration: config.DELIVERY_RATE_WINDOW_MS },
        lockDuration: config.DELIVERY_LOCK_MS,
        stalledInterval: config.DELIVERY_STALLED_INTERVAL_MS,
        // Deliveries are idempotent: a job interrupted by crashes is retried, never failed for it.
        maxStalledCount: 1_000_000,
        settings: { backoffStrategy: deliveryBackoffStrategy(config.DELIVERY_BACKOFF_CAP_MS) },
      },
    },
  );
  stops.push(() => worker.close());
  const poller = createOutcomePoller({
    ...deps,
    logger,
    pageSize: config.OUTCOME_PAGE_SIZE,
    intervalMs: config.OUTCOME_POLL_MS,
    onApplied: deps.metrics.outcome,
  });
  poller.start();
  stops.push(() => poller.stop());
}
