import { z } from 'zod';
import { defineQueue } from '../queue-definition';
import { DrainIdSchema, TimestampSchema } from '../common';

/** A command of one drain operation; the adapter applies each idempotently. */
export const AdapterCommandSchema = z.strictObject({
  drainId: DrainIdSchema,
  requestedAt: TimestampSchema,
});
export type AdapterCommand = z.infer<typeof AdapterCommandSchema>;

/**
 * drain-controller → adapter:
 * - `withdraw-all`: cap every runner's capacity at its active sessions; unregister idle runners.
 * - `cancel-sessions`: unregister what remains, so Node releases every session.
 * - `resume`: restore every registration and its capacity.
 *
 * The queue name is persistent: renaming it strands queued jobs and needs a migration.
 */
export const ADAPTER_COMMANDS_QUEUE = defineQueue('adapter-commands', {
  'withdraw-all': AdapterCommandSchema,
  'cancel-sessions': AdapterCommandSchema,
  resume: AdapterCommandSchema,
});
