import { TicketStateSchema, type RedemptionOutcome, type TicketIntakeResult } from '@sandbox/protocol';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { StoreStats, TicketQueries } from '../store/ticket-queries';

/** Dependencies of {@link createHandoffMetrics}. */
export interface HandoffMetricsDeps {
  readonly registry: Registry;
  readonly queries: TicketQueries;
  readonly now: () => number;
  readonly isDurable: () => boolean;
}

/** The handoff's own series; labels are closed enums (states, reasons), never ticket data. */
export interface HandoffMetrics {
  intake(results: readonly TicketIntakeResult[]): void;
  delivery(event: { outcome: string; latencyMs?: number }): void;
  outcome(outcome: RedemptionOutcome, applied: boolean): void;
}

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3_600, 21_600, 86_400];

/**
 * The gauges read from the store: counts by state, the oldest undelivered ticket's age, the face value
 * at risk and the largest fraction of a validity window already used, from one Redis read per scrape.
 */
function registerStoreGauges(deps: HandoffMetricsDeps): void {
  const registers = [deps.registry];
  let cached: { at: number; stats: Promise<StoreStats | undefined> } | undefined;
  // One Redis read serves every gauge of a scrape (prom-client collects them concurrently).
  const stats = (): Promise<StoreStats | undefined> => {
    const now = deps.now();
    if (!cached || now - cached.at > 250) {
      cached = { at: now, stats: deps.queries.stats().catch(() => undefined) };
    }
    return cached.stats;
  };

  new Gauge({
    name: 'handoff_tickets',
    help: 'Winning tickets by state.',
    labelNames: ['state'],
    registers,
    async collect() {
      const current = await stats();
      if (!current) return;
      for (const state of TicketStateSchema.options) this.set({ state }, current.counts[state]);
    },
  });
  new Gauge({
    name: 'handoff_oldest_undelivered_age_seconds',
    help: 'Age of the oldest ticket the redeemer has not acknowledged yet (0 when none).',
    registers,
    async collect() {
      const current = await stats();
      if (!current) return;
      const oldest = current.oldestUndeliveredAt;
      this.set(oldest === undefined ? 0 : Math.max(0, (deps.now() - oldest) / 1_000));
    },
  });
  new Gauge({
    name: 'handoff_validity_window_used_max_ratio',
    help: 'Largest fraction of its redemption window already used by an undelivered ticket (alert at 0.5).',
    registers,
    async collect() {
      const current = await stats();
      if (!current) return;
      const window = current.nearestDeadline;
      if (!window) return void this.set(0);
      const span = Math.max(window.deadlineAt - window.windowStart, 1);
      this.set(Math.max(0, (deps.now() - window.windowStart) / span));
    },
  });
  new Gauge({
    name: 'handoff_value_at_risk_wei',
    help: 'Face value (wei) of the winning tickets the redeemer has not acknowledged yet.',
    registers,
    async collect() {
      const current = await stats();
      if (current) this.set(Number(current.undeliveredFaceValue));
    },
  });
}

/**
 * Registers the metrics: the store's gauges (below), delivery latency (receipt to the redeemer's
 * acknowledgement), intake verdicts, delivery attempts, applied outcomes and Redis durability.
 */
export function createHandoffMetrics(deps: HandoffMetricsDeps): HandoffMetrics {
  const registers = [deps.registry];
  registerStoreGauges(deps);
  new Gauge({
    name: 'handoff_redis_durable',
    help: '1 while Redis confirms durable writes (AOF fsync), else 0 (intake answers 503).',
    registers,
    collect() {
      this.set(deps.isDurable() ? 1 : 0);
    },
  });
  const latency = new Histogram({
    name: 'handoff_delivery_latency_seconds',
    help: 'Time from intake to the redeemer acknowledging the ticket.',
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const intake = new Counter({
    name: 'handoff_intake_tickets_total',
    help: 'Tickets judged at intake, by verdict and rejection reason.',
    labelNames: ['status', 'reason'],
    registers,
  });
  const attempts = new Counter({
    name: 'handoff_delivery_attempts_total',
    help: 'Delivery attempts by result (accepted, duplicate, rejected, expired_undelivered, or the error).',
    labelNames: ['result'],
    registers,
  });
  const outcomes = new Counter({
    name: 'handoff_outcomes_total',
    help: 'Redeemer outcomes read, by outcome and whether they changed the ticket.',
    labelNames: ['outcome', 'applied'],
    registers,
  });

  return {
    intake(results) {
      for (const result of results) {
        intake.inc({ status: result.status, reason: result.status === 'rejected' ? result.reason : '' });
      }
    },
    delivery(event) {
      attempts.inc({ result: event.outcome });
      if (event.latencyMs !== undefined) latency.observe(event.latencyMs / 1_000);
    },
    outcome(outcome, applied) {
      outcomes.inc({ outcome: outcome.outcome, applied: String(applied) });
    },
  };
}
