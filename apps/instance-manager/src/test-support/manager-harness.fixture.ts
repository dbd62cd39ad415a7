import { INSTANCE_EVENTS_QUEUE, SESSION_EVENTS_QUEUE } from '@sandbox/protocol';
import type { SessionEvent } from '@sandbox/protocol';
import { createProducer, createRedisConnection } from '@sandbox/queue';
import { accessPolicy, createHealth, createMetrics } from '@sandbox/service-kit';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import request from 'supertest';
import { systemClock } from '@sandbox/service-kit';
import type { RuntimeDriver } from '../drivers/runtime-driver';
import type { InstanceManager, ManagerSettings } from '../manager';
import { createInstanceManager } from '../manager';
import { createInstanceStore } from '../store/instance-store';

/** An API client of a test manager (supertest agent with default headers). */
export type ApiClient = ReturnType<typeof request.agent>;

/** Fast settings for tests. */
export function testSettings(
  keyPrefix: string,
  queuePrefix: string,
  overrides: Partial<ManagerSettings> = {},
): ManagerSettings {
  return {
    keyPrefix,
    queuePrefix,
    readyTimeoutMs: 30_000,
    probeIntervalMs: 100,
    withdrawTimeoutMs: 60_000,
    withdrawGraceMs: 60_000,
    resyncIntervalMs: 500,
    goneRetentionMs: 3_600_000,
    startConcurrency: 4,
    ...overrides,
  };
}

const waitReady = (redis: Redis) =>
  redis.status === 'ready'
    ? Promise.resolve()
    : new Promise<void>((resolve) => redis.once('ready', () => resolve()));

/** A manager wired like main.ts, with its own connections, plus what tests inspect it with. */
export async function startManager(redisUrl: string, driver: RuntimeDriver, settings: ManagerSettings) {
  const logger = pino({ level: 'silent' });
  const producerRedis = createRedisConnection(redisUrl, 'producer');
  const workerRedis = createRedisConnection(redisUrl, 'worker');
  await Promise.all([waitReady(producerRedis), waitReady(workerRedis)]);
  const health = createHealth();
  const metrics = createMetrics({ svc: 'instance-manager', collectDefaults: false });
  const tokens = { admin: `admin-${randomUUID()}`, read: `read-${randomUUID()}` };
  const manager: InstanceManager = createInstanceManager({
    access: accessPolicy({ tokens, serviceName: 'instance-manager' }),
    logger,
    health,
    metrics,
    producerRedis,
    workerRedis,
    driver,
    clock: systemClock,
    settings,
  });
  await manager.start();
  let stopped: Promise<void> | undefined;
  return {
    manager,
    tokens,
    /** The manager's API with the admin token on every request. */
    api: request.agent(manager.app).set({ authorization: `Bearer ${tokens.admin}` }),
    store: createInstanceStore({
      redis: workerRedis,
      prefix: settings.keyPrefix,
      retentionMs: settings.goneRetentionMs,
    }),
    /** Idempotent. */
    stop(): Promise<void> {
      stopped ??= (async () => {
        await manager.stop({ waitForStarts: true });
        await Promise.all([producerRedis.quit(), workerRedis.quit()]);
      })();
      return stopped;
    },
  };
}

/** The two queues as the adapter sees them: read instance events, send session events. */
export async function adapterSide(redisUrl: string, queuePrefix: string) {
  const connection = createRedisConnection(redisUrl, 'producer');
  await waitReady(connection);
  const logger = pino({ level: 'silent' });
  const sessions = createProducer(SESSION_EVENTS_QUEUE, { connection, prefix: queuePrefix, logger });
  const events = new Queue(INSTANCE_EVENTS_QUEUE.name, { connection, prefix: queuePrefix });
  let sessionCounter = 0;
  const base = (instanceId: string) => ({
    instanceId,
    runnerId: `runner-${instanceId}`,
    at: new Date().toISOString(),
    source: 'o2r' as const,
  });
  return {
    /** Every instance event queued so far, oldest first. */
    async instanceEvents(): Promise<{ name: string; id: string; data: Record<string, unknown> }[]> {
      const jobs = await events.getJobs([
        'waiting',
        'active',
        'completed',
        'failed',
        'delayed',
        'paused',
        'prioritized',
      ]);
      return jobs
        .sort((a, b) => a.timestamp - b.timestamp || Number(a.id?.localeCompare(b.id ?? '')))
        .map((job) => ({ name: job.name, id: job.id ?? '', data: job.data as Record<string, unknown> }));
    },
    /** Instance event jobs with their BullMQ timestamps (when each was queued). */
    async instanceEventJobs(): Promise<{ name: string; id: string; timestamp: number }[]> {
      const jobs = await events.getJobs([
        'waiting',
        'active',
        'completed',
        'failed',
        'delayed',
        'paused',
        'prioritized',
      ]);
      return jobs.map((job) => ({ name: job.name, id: job.id ?? '', timestamp: job.timestamp }));
    },
    /** Removes one instance event job (as if it had never been queued). */
    async removeEvent(jobId: string): Promise<void> {
      await events.remove(jobId);
    },
    /** Instance events not yet consumed. */
    async pendingEvents(): Promise<number> {
      const counts = await events.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused');
      return Object.values(counts).reduce((sum, count) => sum + count, 0);
    },
    reserve(instanceId: string, sessionId = `s${(sessionCounter += 1)}`): Promise<string> {
      const event: SessionEvent = { ...base(instanceId), sessionId };
      return sessions.add('session-reserved', event).then(() => sessionId);
    },
    release: (instanceId: string, sessionId: string) =>
      sessions.add('session-released', { ...base(instanceId), sessionId }),
    withdrawn: (instanceId: string) =>
      sessions.add('runner-withdrawn', {
        instanceId,
        runnerId: `runner-${instanceId}`,
        at: new Date().toISOString(),
      }),
    refuse: (instanceId: string, reason = 'bad price') =>
      sessions.add('registration-failed', {
        instanceId,
        runnerId: `runner-${instanceId}`,
        status: 400,
        reason,
        at: new Date().toISOString(),
      }),
    async close() {
      await sessions.queue.obliterate({ force: true });
      await events.obliterate({ force: true });
      await sessions.close();
      await events.close();
      await connection.quit();
    },
  };
}
