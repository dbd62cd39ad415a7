import { describe, expect, it } from '@jest/globals';
import { SessionsViewSchema, sessionsViewKey, type RunnerView } from '@sandbox/protocol';
import { ManualClock, createMemoryLogger } from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { createSessionsViewWriter, sessionsViewOf } from './sessions-view.writer';

const SESSION = (n: number) => n.toString(16).padStart(32, '0');

const runner = (
  instanceId: string,
  app: string,
  sessions: number,
  overrides: Partial<RunnerView> = {},
): RunnerView => ({
  instanceId,
  app,
  runnerId: instanceId,
  state: 'registered',
  capacity: 4,
  advertisedCapacity: 4,
  lastBeat: { at: '2025-01-01T00:00:00.000Z', latencyMs: 1.5 },
  heartbeat: { intervalMs: 5_000, ttlMs: 30_000 },
  sessions: Array.from({ length: sessions }, (_, index) => SESSION(index + 1)),
  o2r: { connected: true, lastMessageAt: null },
  lastError: null,
  failure: null,
  withdrawal: null,
  ...overrides,
});

/** A Redis whose `set` records its arguments, and fails or hangs when told. */
function fakeRedis() {
  const writes: Array<{ key: string; value: string; mode: string; ttl: number }> = [];
  let mode: 'ok' | 'fail' | 'hang' = 'ok';
  const redis = {
    set: (key: string, value: string, px: string, ttl: number) => {
      if (mode === 'fail') return Promise.reject(new Error("Stream isn't writeable"));
      writes.push({ key, value, mode: px, ttl });
      return mode === 'hang' ? new Promise(() => undefined) : Promise.resolve('OK');
    },
  };
  return { redis: redis as unknown as Redis, writes, set: (next: typeof mode) => (mode = next) };
}

describe('sessionsViewOf', () => {
  it('counts sessions per app and in total, and runners at Node not heard from yet', () => {
    const view = sessionsViewOf(
      [
        runner('a', 'echo', 2),
        runner('b', 'echo', 1, { state: 'capped' }),
        runner('c', 'chat', 0),
        runner('d', 'chat', 0, { lastBeat: null }),
        runner('e', 'chat', 0, { state: 'unregistering', lastBeat: null }),
        // Not at Node: no sessions to hear of.
        runner('f', 'chat', 0, { state: 'parked', lastBeat: null }),
        runner('g', 'chat', 0, { state: 'registering', lastBeat: null }),
      ],
      Date.parse('2026-06-01T03:00:00.000Z'),
    );
    expect(view).toEqual({
      total: 3,
      byApp: { echo: 3 },
      unreported: 2,
      observedAt: '2026-06-01T03:00:00.000Z',
    });
    expect(SessionsViewSchema.parse(view)).toEqual(view);
  });
});

describe('the sessions view writer', () => {
  it('writes the view under the adapter prefix with an expiry, at once and every interval, until stopped', async () => {
    const clock = new ManualClock();
    const fake = fakeRedis();
    let runners = [runner('a', 'echo', 1)];
    const writer = createSessionsViewWriter({
      redis: fake.redis,
      statePrefix: 'adapter-x',
      runners: () => runners,
      clock,
      logger: createMemoryLogger().logger,
      intervalMs: 1_000,
      ttlMs: 5_000,
    });
    writer.start();
    await clock.settle();
    expect(fake.writes).toHaveLength(1);
    expect(fake.writes[0]).toMatchObject({ key: sessionsViewKey('adapter-x'), mode: 'PX', ttl: 5_000 });
    runners = [];
    await clock.advanceAndSettle(1_000);
    expect(fake.writes.map((write) => JSON.parse(write.value))).toEqual([
      {
        total: 1,
        byApp: { echo: 1 },
        unreported: 0,
        observedAt: new Date(clock.now() - 1_000).toISOString(),
      },
      { total: 0, byApp: {}, unreported: 0, observedAt: new Date(clock.now()).toISOString() },
    ]);
    writer.stop();
    await clock.advanceAndSettle(5_000);
    expect(fake.writes).toHaveLength(2);
    expect(clock.pending).toBe(0);
  });

  it('logs a failing Redis once, keeps trying, skips ticks while a write hangs', async () => {
    const clock = new ManualClock();
    const fake = fakeRedis();
    const log = createMemoryLogger();
    const writer = createSessionsViewWriter({
      redis: fake.redis,
      statePrefix: 'adapter',
      runners: () => [],
      clock,
      logger: log.logger,
    });
    fake.set('fail');
    writer.start();
    await clock.advanceAndSettle(3_000);
    expect(log.text().split('cannot write the sessions view').length - 1).toBe(1);
    fake.set('ok');
    await clock.advanceAndSettle(1_000);
    expect(fake.writes).toHaveLength(1);
    expect(log.text()).toContain('sessions view written again');
    fake.set('hang');
    await clock.advanceAndSettle(5_000);
    // One write went out and hangs; the ticks after it found it in flight.
    expect(fake.writes).toHaveLength(2);
    writer.stop();
  });
});
