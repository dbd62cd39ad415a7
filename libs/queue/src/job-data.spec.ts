import { describe, expect, it } from '@jest/globals';
import { defineQueue } from '@sandbox/protocol';
import { z } from 'zod';
import { JobDataError } from './errors';
import { mapError } from '@sandbox/service-kit';
import { findSecretKeyPaths, parseJobData } from './job-data';

const CANARY = 'canary-7f3a9c-do-not-log';

const greetings = defineQueue('unit-greetings', {
  'send-greeting': z.strictObject({
    to: z.string().min(1),
    times: z.number().int().positive().default(1),
    headers: z.record(z.string(), z.string()).optional(),
    items: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
});

function refusal(run: () => unknown): JobDataError {
  try {
    run();
  } catch (error) {
    if (error instanceof JobDataError) return error;
    throw error;
  }
  throw new Error('expected a JobDataError');
}

describe('parseJobData', () => {
  it('returns the schema output, defaults applied', () => {
    expect(parseJobData(greetings, 'send-greeting', { to: 'ada' })).toEqual({ to: 'ada', times: 1 });
  });

  it('lists every invalid path with a message and no value', () => {
    const error = refusal(() => parseJobData(greetings, 'send-greeting', { to: 42, times: CANARY }));
    expect(error.code).toBe('invalid_request');
    expect(mapError(error).status).toBe(400);
    expect(error.issues?.map((issue) => issue.path).sort()).toEqual(['times', 'to']);
    expect(error.message).toContain('unit-greetings/send-greeting');
    expect(JSON.stringify({ message: error.message, issues: error.issues })).not.toContain(CANARY);
  });

  it('refuses a secret field name at any depth without quoting its value', () => {
    const data = {
      to: 'ada',
      items: [{ ok: 1 }, { nested: { Credential: CANARY } }],
      headers: { sessionToken: CANARY },
    };
    const error = refusal(() => parseJobData(greetings, 'send-greeting', data));
    expect(error.issues?.map((issue) => issue.path).sort()).toEqual([
      'headers.sessionToken',
      'items.1.nested.Credential',
    ]);
    expect(`${error.message} ${JSON.stringify(error.issues)}`).not.toContain(CANARY);
  });

  it('refuses an unknown job name, including inherited object keys', () => {
    expect(refusal(() => parseJobData(greetings, 'nope', {})).issues?.[0]?.path).toBe('(job name)');
    expect(refusal(() => parseJobData(greetings, 'toString', {})).issues?.[0]?.path).toBe('(job name)');
  });
});

describe('findSecretKeyPaths', () => {
  it('finds keys case-insensitively and survives cycles', () => {
    const cyclic: Record<string, unknown> = { Authorization: 'x' };
    cyclic['self'] = cyclic;
    expect(findSecretKeyPaths(cyclic)).toEqual(['Authorization']);
    expect(findSecretKeyPaths({ recipientRand: 1, a: [{ b: { seed: 2 } }] })).toEqual([
      'recipientRand',
      'a.0.b.seed',
    ]);
    expect(findSecretKeyPaths(['secret', { safe: 'secret' }])).toEqual([]);
  });
});
