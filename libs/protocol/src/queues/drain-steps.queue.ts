import { z } from 'zod';
import { defineQueue } from '../queue-definition';
import { DrainIdSchema } from '../common';

/**
 * One step of a drain. The state lives in the drain record (Redis), so the job carries only its id and
 * a step that finds the drain in another phase does nothing.
 */
export const DrainStepSchema = z.strictObject({ drainId: DrainIdSchema });
export type DrainStep = z.infer<typeof DrainStepSchema>;

/**
 * drain-controller → itself: one job name per drain phase, in order. `window-expired` is the delayed job
 * that fires at the drain window's deadline.
 * The queue name is persistent: renaming it strands queued jobs and needs a migration.
 */
export const DRAIN_STEPS_QUEUE = defineQueue('drain-steps', {
  withdraw: DrainStepSchema,
  'wait-sessions': DrainStepSchema,
  'window-expired': DrainStepSchema,
  cancel: DrainStepSchema,
  'replace-orchestrator': DrainStepSchema,
  'wait-node': DrainStepSchema,
  resume: DrainStepSchema,
});
