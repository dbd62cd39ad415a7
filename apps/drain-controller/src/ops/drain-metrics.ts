import { DrainPhaseSchema, type DrainRecord } from '@sandbox/protocol';
import { Counter, Gauge, type Registry } from 'prom-client';

/** Dependencies of {@link createDrainMetrics}. */
export interface DrainMetricsDeps {
  registry: Registry;
  /** The active drain, or else the latest one; read at each scrape. */
  current: () => Promise<DrainRecord | undefined>;
  now: () => number;
}

/** The drain's series: phase, sessions left per app, seconds to the deadline, phase changes. No ids as labels. */
export function createDrainMetrics(deps: DrainMetricsDeps) {
  const registers = [deps.registry];
  const phaseChanges = new Counter({
    name: 'drain_phase_changes_total',
    help: 'Drain phase changes, by the phase entered.',
    labelNames: ['phase'],
    registers,
  });
  const phase = new Gauge({
    name: 'drain_phase',
    help: '1 for the phase of the active (or else the latest) drain, 0 for the others.',
    labelNames: ['phase'],
    registers,
    async collect() {
      const record = await deps.current();
      for (const name of DrainPhaseSchema.options) this.set({ phase: name }, record?.phase === name ? 1 : 0);
    },
  });
  const sessions = new Gauge({
    name: 'drain_sessions_remaining',
    help: 'Sessions Node still shows on our runners during the drain, by app.',
    labelNames: ['app'],
    registers,
    async collect() {
      this.reset();
      const record = await deps.current();
      for (const [app, count] of Object.entries(record?.sessions?.byApp ?? {})) this.set({ app }, count);
    },
  });
  const toDeadline = new Gauge({
    name: 'drain_seconds_to_deadline',
    help: 'Seconds until the active drain cancels the remaining sessions (0 when none is waiting).',
    registers,
    async collect() {
      const record = await deps.current();
      const waiting = record?.phase === 'withdrawing' || record?.phase === 'draining';
      this.set(waiting ? Math.max(0, (Date.parse(record.deadline) - deps.now()) / 1_000) : 0);
    },
  });
  return {
    phase,
    sessions,
    toDeadline,
    /** Counts a phase entered. */
    onPhase: (record: DrainRecord) => phaseChanges.inc({ phase: record.phase }),
  };
}
