import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { listSchemaKeys } from '../common/schema-keys';
import { defineQueue, type QueueDefinition } from '../queue-definition';
import { isSecretFieldName, secret, secretRegistry } from '../secrets';
import { ALL_QUEUES } from './index';

function jobSchemasOf(queues: readonly QueueDefinition[]) {
  return queues.flatMap((queue) =>
    Object.entries(queue.jobs).map(([job, schema]) => ({ queue: queue.name, job, schema })),
  );
}

/** Every `queue/job: path` whose key is a secret field name or whose schema is marked secret. */
function secretKeysOf(queues: readonly QueueDefinition[]): string[] {
  return jobSchemasOf(queues).flatMap(({ queue, job, schema }) =>
    listSchemaKeys(schema)
      .filter((entry) => isSecretFieldName(entry.key) || secretRegistry.has(entry.schema))
      .map((entry) => `${queue}/${job}: ${entry.parentPath ? `${entry.parentPath}.` : ''}${entry.key}`),
  );
}

const jobSchemas = jobSchemasOf(ALL_QUEUES);

describe('ALL_QUEUES', () => {
  it('lists every queue of the architecture once, with kebab-case names', () => {
    expect(ALL_QUEUES.map((queue) => queue.name)).toEqual([
      'instance-events',
      'session-events',
      'adapter-commands',
      'drain-steps',
      'ticket-delivery',
      'evaluations',
    ]);
    for (const { queue, job } of jobSchemas) {
      expect(`${queue}/${job}`).toMatch(/^[a-z]+(?:-[a-z]+)*\/[a-z]+(?:-[a-z]+)*$/);
    }
  });

  it('has an object schema with at least one key for every job', () => {
    for (const { schema } of jobSchemas) {
      expect(schema._zod.def.type).toBe('object');
      expect(Object.keys((schema as z.ZodObject).shape).length).toBeGreaterThan(0);
    }
  });

  it('uses no secret field name and no secret-marked schema in any job payload, at any depth', () => {
    expect(secretKeysOf(ALL_QUEUES)).toEqual([]);
    const walked = jobSchemas.reduce((count, { schema }) => count + listSchemaKeys(schema).length, 0);
    expect(walked).toBeGreaterThan(30);
  });

  it('the check finds secret names and secret-marked schemas nested in a payload', () => {
    const leaky = defineQueue('leaky', {
      'do-thing': z.strictObject({
        runner: z.strictObject({ id: z.string(), Credential: z.string() }),
        items: z.array(z.object({ proof: secret(z.string()) })).optional(),
      }),
    });
    expect(secretKeysOf([leaky])).toEqual([
      'leaky/do-thing: runner.Credential',
      'leaky/do-thing: items.*.proof',
    ]);
  });
});
