import { describe, expect, it } from '@jest/globals';
import {
  InstanceListQuerySchema,
  InstanceLogsQuerySchema,
  InstanceResourceSchema,
  InstanceStateSchema,
} from './instance-manager-api.schema';

const resource = {
  instanceId: 'abcde12345',
  app: 'demo',
  kind: 'single-session',
  state: 'gone',
  capacity: 1,
  sessions: 0,
  templateHash: '0123456789abcdef',
  createdAt: '2026-01-01T00:00:00.000Z',
  goneAt: '2026-01-01T00:01:00.000Z',
  outcome: 'completed',
  reason: 'session ended',
};

describe('instance-manager API schemas', () => {
  it('lists the states in lifecycle order', () => {
    expect(InstanceStateSchema.options).toEqual(['starting', 'ready', 'taken', 'withdrawing', 'gone']);
  });

  it('accepts an instance resource and refuses unknown fields and bad values', () => {
    expect(InstanceResourceSchema.parse(resource)).toEqual(resource);
    expect(InstanceResourceSchema.safeParse({ ...resource, secret: 'x' }).success).toBe(false);
    expect(InstanceResourceSchema.safeParse({ ...resource, outcome: 'crashed' }).success).toBe(false);
    expect(InstanceResourceSchema.safeParse({ ...resource, url: 'ftp://10.0.0.1' }).success).toBe(false);
  });

  it('parses the list and logs queries', () => {
    expect(InstanceListQuerySchema.parse({ app: 'demo', state: 'ready' })).toEqual({
      app: 'demo',
      state: 'ready',
    });
    expect(InstanceListQuerySchema.safeParse({ page: '2' }).success).toBe(false);
    expect(InstanceLogsQuerySchema.parse({})).toEqual({ tail: 200 });
    expect(InstanceLogsQuerySchema.parse({ tail: '50' })).toEqual({ tail: 50 });
    expect(InstanceLogsQuerySchema.safeParse({ tail: '0' }).success).toBe(false);
    expect(InstanceLogsQuerySchema.safeParse({ tail: '5001' }).success).toBe(false);
  });
});
