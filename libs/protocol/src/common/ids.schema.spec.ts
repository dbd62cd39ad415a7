import { describe, expect, it } from '@jest/globals';
import {
  AppNameSchema,
  DrainIdSchema,
  InstanceIdSchema,
  RunnerIdSchema,
  SessionIdSchema,
} from './ids.schema';

describe('AppNameSchema', () => {
  it.each(['a', 'example-app', 'eval-responder', 'app2', 'a'.repeat(40)])('accepts %s', (name) => {
    expect(AppNameSchema.safeParse(name).success).toBe(true);
  });
  it.each(['', 'Example', '2app', '-app', 'app-', 'my_app', 'my.app', 'a'.repeat(41), 'app name'])(
    'rejects %j',
    (name) => {
      expect(AppNameSchema.safeParse(name).success).toBe(false);
    },
  );
});

describe('InstanceIdSchema', () => {
  it.each(['example-app-7f3k2', '0a1b', 'x'.repeat(63)])('accepts %s', (id) => {
    expect(InstanceIdSchema.safeParse(id).success).toBe(true);
  });
  it.each(['', 'Upper', '-x', 'x-', 'x'.repeat(64), 'a_b'])('rejects %j', (id) => {
    expect(InstanceIdSchema.safeParse(id).success).toBe(false);
  });
  it('keeps every instance id a valid runner id for Node', () => {
    expect(RunnerIdSchema.safeParse('example-app-7f3k2').success).toBe(true);
  });
});

describe('opaque ids (runner, session, drain)', () => {
  it.each(['0123456789abcdef0123456789abcdef', 'Runner_1-a', 'r'.repeat(128)])('accepts %s', (id) => {
    expect(RunnerIdSchema.safeParse(id).success).toBe(true);
    expect(SessionIdSchema.safeParse(id).success).toBe(true);
    expect(DrainIdSchema.safeParse(id).success).toBe(true);
  });
  it.each(['', 'r'.repeat(129), 'a/b', 'a b', 'é', '../x'])('rejects %j', (id) => {
    expect(RunnerIdSchema.safeParse(id).success).toBe(false);
    expect(SessionIdSchema.safeParse(id).success).toBe(false);
  });
});
