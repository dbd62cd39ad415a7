import {
  AppNameSchema,
  InstanceIdSchema,
  InstanceKindSchema,
  InstanceOutcomeSchema,
  InstanceStateSchema,
} from '@sandbox/protocol';
import type { InstanceResource } from '@sandbox/protocol';
import { z } from 'zod';
import { InstanceOfferSchema } from '../domain/instance-offer';
import { JsonTextSchema } from './json-text';

const time = z.coerce.number().int().nonnegative();
const flag = z.enum(['0', '1']).transform((value) => value === '1');

/**
 * One instance record as stored in its Redis hash (all values are strings there). Field names are
 * persistent. `endOutcome`/`endReason` record the intended terminal outcome before the instance is
 * destroyed, so a crash in between still ends it the way it was meant to.
 */
export const InstanceRecordSchema = z.object({
  id: InstanceIdSchema,
  app: AppNameSchema,
  kind: InstanceKindSchema,
  templateHash: z.string().min(1),
  state: InstanceStateSchema,
  offer: JsonTextSchema.pipe(InstanceOfferSchema),
  createdAt: time,
  readyAt: time.optional(),
  url: z.string().optional(),
  takenAt: time.optional(),
  takenBy: z.string().optional(),
  withdrawAt: time.optional(),
  withdrawImmediate: flag.optional(),
  withdrawDeadline: time.optional(),
  reason: z.string().optional(),
  endOutcome: InstanceOutcomeSchema.optional(),
  endReason: z.string().optional(),
  goneAt: time.optional(),
  outcome: InstanceOutcomeSchema.optional(),
  readyQueued: flag.default(false),
  withdrawQueued: flag.default(false),
  goneQueued: flag.default(false),
});
export type InstanceRecord = z.infer<typeof InstanceRecordSchema>;

/** The fields of a new record (state `starting`). */
export type NewInstance = Pick<
  InstanceRecord,
  'id' | 'app' | 'kind' | 'templateHash' | 'offer' | 'createdAt'
>;

/** Hash fields of a new record. */
export function newRecordFields(record: NewInstance): string[] {
  return [
    ...['id', record.id, 'app', record.app, 'kind', record.kind, 'templateHash', record.templateHash],
    ...['state', 'starting', 'offer', JSON.stringify(record.offer), 'createdAt', String(record.createdAt)],
    ...['readyQueued', '0', 'withdrawQueued', '0', 'goneQueued', '0'],
  ];
}

/** Parses a stored hash; undefined for a missing (expired) or unreadable record. */
export function parseRecord(hash: Record<string, string>): InstanceRecord | undefined {
  if (Object.keys(hash).length === 0) return undefined;
  const parsed = InstanceRecordSchema.safeParse(hash);
  return parsed.success ? parsed.data : undefined;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The API view of a record. */
export function toInstanceResource(record: InstanceRecord, sessions: number): InstanceResource {
  const resource: InstanceResource = {
    instanceId: record.id,
    app: record.app,
    kind: record.kind,
    state: record.state,
    capacity: record.offer.capacity,
    sessions,
    templateHash: record.templateHash,
    createdAt: new Date(record.createdAt).toISOString(),
  };
  const optional = {
    url: record.url,
    readyAt: iso(record.readyAt),
    takenAt: iso(record.takenAt),
    withdrawingSince: iso(record.withdrawAt),
    goneAt: iso(record.goneAt),
    outcome: record.outcome,
    reason: record.reason,
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) Object.assign(resource, { [key]: value });
  return resource;
}
