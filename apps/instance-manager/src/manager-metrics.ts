import type { InstanceOutcome, InstanceState } from '@sandbox/protocol';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

/** The instance-manager's own series. */
export function createManagerMetrics(registry: Registry) {
  const instances = new Gauge<'app' | 'state'>({
    name: 'instance_manager_instances',
    help: 'Instances that are not gone, by app and state (refreshed every full pass).',
    labelNames: ['app', 'state'],
    registers: [registry],
  });
  const startToReady = new Histogram({
    name: 'instance_manager_start_to_ready_seconds',
    help: 'Seconds from an instance record being created to the instance being ready.',
    buckets: [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30, 60],
    registers: [registry],
  });
  const ended = new Counter<'outcome'>({
    name: 'instance_manager_instances_ended_total',
    help: 'Instances that reached their terminal outcome.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  return {
    observeReady(seconds: number): void {
      startToReady.observe(seconds);
    },
    countEnded(outcome: InstanceOutcome): void {
      ended.inc({ outcome });
    },
    setCounts(counts: readonly { app: string; state: InstanceState; count: number }[]): void {
      instances.reset();
      for (const { app, state, count } of counts) instances.set({ app, state }, count);
    },
  };
}

export type ManagerMetrics = ReturnType<typeof createManagerMetrics>;
