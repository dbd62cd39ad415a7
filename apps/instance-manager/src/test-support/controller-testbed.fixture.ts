import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { startRedis, uniquePrefix as testPrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import type { ManagerSettings } from '../manager';
import { FakeHost } from './fake-runtime.fixture';
import { adapterSide, startManager, testSettings } from './manager-harness.fixture';

/** Ids of the announced instances among queued instance events. */
export const readyIds = (events: { name: string; data: Record<string, unknown> }[]) =>
  events.filter((event) => event.name === 'instance-ready').map((event) => String(event.data['instanceId']));

/**
 * Ids of the announced instances once there are `count` of them. A record turns `ready` a moment
 * before its `instance-ready` job is queued, so tests that act on announced ids wait for the jobs.
 */
export const announcedIds = (
  adapter: { instanceEvents(): Promise<{ name: string; data: Record<string, unknown> }[]> },
  count: number,
) =>
  waitFor(
    async () => {
      const ids = readyIds(await adapter.instanceEvents());
      return ids.length >= count ? ids : undefined;
    },
    { description: `${count} instance-ready event(s)`, timeoutMs: 10_000 },
  );

/** Managers on a fake host and real Redis, each with its own prefixes, cleaned up after each test. */
export function controllerTestbed(redisUrl: () => string, uniquePrefix: (label: string) => string) {
  let cleanups: (() => Promise<void>)[] = [];
  const track = (cleanup: () => Promise<void>) => void cleanups.push(cleanup);
  return {
    track,
    async cleanup(): Promise<void> {
      for (const cleanup of cleanups.reverse()) await cleanup();
      cleanups = [];
    },
    async setup(overrides: Partial<ManagerSettings> = {}, host = new FakeHost()) {
      const settings = testSettings(uniquePrefix('im'), uniquePrefix('q'), overrides);
      const adapter = await adapterSide(redisUrl(), settings.queuePrefix);
      const running = await startManager(redisUrl(), host.driver(), settings);
      track(() => adapter.close());
      track(() => running.stop());
      const states = async (app: string) =>
        (await running.store.listLive(app)).map((entry) => entry.record.state).sort();
      return { settings, host, adapter, running, api: running.api, states };
    },
  };
}

/**
 * A spec file's testbed: one real Redis for the file (started before all tests, stopped after), the
 * managers of each test cleaned up after it.
 */
export function useControllerTestbed() {
  let redis: RedisFixture | undefined;
  const redisUrl = (): string => {
    if (!redis) throw new Error('the testbed Redis is not started yet');
    return redis.url;
  };
  const testbed = controllerTestbed(redisUrl, testPrefix);
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(() => testbed.cleanup());
  afterAll(async () => {
    await redis?.stop();
  });
  return { ...testbed, redisUrl };
}
