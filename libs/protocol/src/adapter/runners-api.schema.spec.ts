import { describe, expect, it } from '@jest/globals';
import { AdapterCommandResultSchema, RunnersQuerySchema, RunnerViewSchema } from './runners-api.schema';

const view = {
  instanceId: 'echo-1',
  app: 'echo',
  runnerId: 'echo-1',
  state: 'registered',
  capacity: 2,
  advertisedCapacity: 2,
  lastBeat: { at: '2025-01-01T00:00:00.000Z', latencyMs: 1.2 },
  heartbeat: { intervalMs: 5_000, ttlMs: 30_000 },
  sessions: ['0123456789abcdef0123456789abcdef'],
  o2r: { connected: true, lastMessageAt: null },
  lastError: null,
  failure: null,
  withdrawal: null,
};

describe('adapter API schemas', () => {
  it('accepts a registration view and refuses any extra field (a credential could never ride along)', () => {
    expect(RunnerViewSchema.parse(view)).toEqual(view);
    expect(RunnerViewSchema.safeParse({ ...view, credential: 'x' }).success).toBe(false);
    expect(RunnerViewSchema.safeParse({ ...view, state: 'dancing' }).success).toBe(false);
  });

  it('validates the list query strictly', () => {
    expect(RunnersQuerySchema.parse({ state: 'failed', app: 'echo' })).toEqual({
      state: 'failed',
      app: 'echo',
    });
    expect(RunnersQuerySchema.safeParse({ state: 'x' }).success).toBe(false);
    expect(RunnersQuerySchema.safeParse({ other: '1' }).success).toBe(false);
  });

  it('describes a command result', () => {
    const result = {
      command: 'withdraw-all',
      drainId: 'drain-1',
      runners: 3,
      registered: 0,
      capped: 2,
      unregistered: 1,
      activeSessions: 3,
      completedAt: '2025-01-01T00:00:00.000Z',
    };
    expect(AdapterCommandResultSchema.parse(result)).toEqual(result);
    expect(AdapterCommandResultSchema.safeParse({ ...result, command: 'drain' }).success).toBe(false);
  });
});
