import { EVALUATIONS_QUEUE, RunEvaluationSchema } from '@sandbox/protocol';
import type { ServiceLogger } from '@sandbox/service-kit';
import type { Queue } from 'bullmq';

const SCHEDULER_PREFIX = 'evaluate-';

/**
 * One BullMQ job scheduler per target app (`evaluate-<app>`, persistent ids), firing an app-wide
 * `run-evaluation` every `everyMs`; the fan-out spreads the runs with jitter. Schedulers of apps no
 * longer configured are removed.
 */
export async function syncSchedules(
  queue: Queue,
  apps: readonly string[],
  options: { everyMs: number; logger: ServiceLogger; now: () => number },
): Promise<void> {
  for (const app of apps) {
    const data = RunEvaluationSchema.parse({
      evaluationId: `sched-${app}`,
      target: { app },
      requestedAt: new Date(options.now()).toISOString(),
      trigger: 'scheduled',
    });
    await queue.upsertJobScheduler(
      `${SCHEDULER_PREFIX}${app}`,
      { every: options.everyMs },
      { name: 'run-evaluation', data },
    );
  }
  const wanted = new Set(apps.map((app) => `${SCHEDULER_PREFIX}${app}`));
  for (const scheduler of await queue.getJobSchedulers()) {
    const id = scheduler.key;
    if (id.startsWith(SCHEDULER_PREFIX) && !wanted.has(id)) await queue.removeJobScheduler(id);
  }
  options.logger.info(
    { queue: EVALUATIONS_QUEUE.name, apps, everyMs: options.everyMs },
    'evaluation schedules set',
  );
}
