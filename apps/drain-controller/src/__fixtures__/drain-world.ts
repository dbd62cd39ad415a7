// One spec file's world: real Redis, the Node simulator (restartable), the real adapter as a child
// process, an SSE instance backend, and the drain-controller in-process with an adjustable clock.
import { INSTANCE_EVENTS_QUEUE, type DrainRecord, type RunnersResponse } from '@sandbox/protocol';
import { createProducer, createRedisConnection, type Producer } from '@sandbox/queue';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { waitFor, type RedisFixture } from '@sandbox/testing';
import { pino } from 'pino';
import type { DrainParts } from '../service';
import type { SupervisedSim } from './processes';
import type { SseBackend } from './sse-backend';
import { drainControllerEnv, startInProcessController } from './world-controller';
import { startWorldMembers } from './world-members';

/** What the spec gives the world. */
export interface TestKit {
  /** PATH and HOME for the children (nothing else is inherited). */
  baseEnv: Record<string, string>;
  /** The management tokens (`createTestAccess()`): their files for every service, headers for calls. */
  access: {
    env: { ADMIN_TOKEN_FILE: string; READ_TOKEN_FILE: string };
    headers(role: 'admin' | 'read'): { authorization: string };
  };
}

/** A drain-controller running in this process. */
export interface RunningController {
  readonly parts: DrainParts;
  readonly url: string;
  logs(): string;
  stop(): Promise<void>;
}

export interface DrainWorld {
  readonly redis: RedisFixture;
  readonly sim: SupervisedSim;
  readonly backend: SseBackend;
  readonly adapterUrl: string;
  readonly prefix: string;
  /** The adapter's STATE_PREFIX (its sessions view is under it). */
  readonly adapterStatePrefix: string;
  /** kill -9 of the adapter; it stays down until {@link DrainWorld.restartAdapter}. */
  killAdapter(): Promise<void>;
  restartAdapter(): Promise<void>;
  /** Node's bootstrap secret (a canary: it must never show in the controller's logs or jobs). */
  readonly secret: string;
  /** Authorization headers for the services' APIs. */
  headers(role: 'admin' | 'read'): { authorization: string };
  /** Moves the controllers' clock (never the real one). */
  advanceClock(ms: number): void;
  now(): number;
  /** Publishes `instance-ready` for each id (app `echo`, persistent, capacity 4) to the adapter. */
  addInstances(ids: string[]): Promise<void>;
  /** {@link addInstances}, then waits until the adapter shows exactly these runners, all registered. */
  registerInstances(ids: string[]): Promise<void>;
  runners(): Promise<RunnersResponse>;
  startController(env?: Record<string, string>): Promise<RunningController>;
  /** The controller environment as main.ts would read it (for child-process controllers). */
  controllerEnv(env?: Record<string, string>): Record<string, string>;
  waitPhase(
    controllerUrl: string,
    id: string,
    phases: DrainRecord['phase'][],
    timeoutMs?: number,
  ): Promise<DrainRecord>;
  close(): Promise<void>;
}

export async function startDrainWorld(
  name: string,
  kit: TestKit,
  options: { heartbeat?: { interval: string; ttl: string } } = {},
): Promise<DrainWorld> {
  const members = await startWorldMembers(name, kit, options.heartbeat);
  const { redis, backend, sim, adapterUrl, prefix } = members;
  const connection: Redis = createRedisConnection(redis.url, 'producer');
  const logger = pino({ level: 'silent' });
  const instanceEvents: Producer<typeof INSTANCE_EVENTS_QUEUE> = createProducer(INSTANCE_EVENTS_QUEUE, {
    connection,
    prefix,
    logger,
  });
  let offset = 0;
  const now = () => Date.now() + offset;
  const controllers = new Set<RunningController>();
  const controllerEnv = (env: Record<string, string> = {}) => drainControllerEnv(members, kit, env);

  const world: DrainWorld = {
    redis,
    sim,
    backend,
    adapterUrl,
    prefix,
    adapterStatePrefix: members.adapterStatePrefix,
    killAdapter: members.killAdapter,
    restartAdapter: members.restartAdapter,
    secret: members.secret,
    headers: kit.access.headers,
    advanceClock: (ms) => (offset += ms),
    now,
    async addInstances(ids) {
      for (const instanceId of ids) {
        await instanceEvents.add('instance-ready', {
          instanceId,
          app: 'echo',
          url: backend.url,
          capacity: 4,
          mode: 'persistent',
          kind: 'reusable',
          metadata: '{"role":"drain-spec"}',
          readyAt: new Date().toISOString(),
        });
      }
    },
    async registerInstances(ids) {
      await world.addInstances(ids);
      await waitFor(
        async () => {
          const { runners } = await world.runners();
          return runners.length === ids.length && runners.every((runner) => runner.state === 'registered');
        },
        { description: 'every instance registered', timeoutMs: 30_000 },
      );
    },
    async runners() {
      const response = await fetch(`${adapterUrl}/v1/runners`, { headers: kit.access.headers('read') });
      return (await response.json()) as RunnersResponse;
    },
    controllerEnv,
    async startController(env = {}) {
      const running = await startInProcessController({
        env: controllerEnv(env),
        childEnv: members.childEnv({}),
        now,
        onStop: (stopped) => controllers.delete(stopped),
      });
      controllers.add(running);
      return running;
    },
    async waitPhase(controllerUrl, id, phases, timeoutMs = 30_000) {
      return waitFor(
        async () => {
          const response = await fetch(`${controllerUrl}/v1/drains/${id}`, {
            headers: kit.access.headers('read'),
          });
          const record = (await response.json()) as DrainRecord;
          return phases.includes(record.phase) ? record : undefined;
        },
        { description: `drain ${id} in ${phases.join('|')}`, timeoutMs, intervalMs: 50 },
      );
    },
    async close() {
      for (const running of [...controllers]) await running.stop();
      await instanceEvents.close();
      const queues = ['drain-steps', 'adapter-commands', 'instance-events', 'session-events'];
      for (const queueName of queues) {
        const queue = new Queue(queueName, { connection, prefix });
        await queue.obliterate({ force: true }).catch(() => undefined);
        await queue.close();
      }
      await connection.quit();
      await members.stop();
    },
  };
  return world;
}
