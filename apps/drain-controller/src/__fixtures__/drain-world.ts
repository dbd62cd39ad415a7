// One spec file's world: real Redis, the Node simulator (restartable), the real adapter as a child
// process, an SSE instance backend, and the drain-controller in-process with an adjustable clock.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INSTANCE_EVENTS_QUEUE, type DrainRecord, type RunnersResponse } from '@sandbox/protocol';
import { createProducer, createRedisConnection, type Producer } from '@sandbox/queue';
import { boundPort, startService } from '@sandbox/service-kit';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { DrainConfigSchema } from '../config';
import { composeDrainController, type DrainParts } from '../service';
import { createDriver } from '../drivers/create-driver';
import { ADAPTER_MAIN, spawnChild, startSupervisedSim, type Child, type SupervisedSim } from './processes';
import { startSseBackend, type SseBackend } from './sse-backend';

/** The test library's helpers, passed in by the spec (fixtures may not import test-only libraries). */
export interface TestKit {
  startRedis(): Promise<RedisFixture>;
  findFreePort(): Promise<number>;
  waitFor<T>(
    predicate: () => T | Promise<T>,
    options: { description: string; timeoutMs?: number; intervalMs?: number },
  ): Promise<NonNullable<T>>;
  /** PATH and HOME for the children (nothing else is inherited). */
  baseEnv: Record<string, string>;
  /** The management tokens (`createTestAccess()`): their files for every service, headers for calls. */
  access: {
    env: { ADMIN_TOKEN_FILE: string; READ_TOKEN_FILE: string };
    headers(role: 'admin' | 'read'): { authorization: string };
  };
}

/** The part of a Redis fixture the world uses. */
export interface RedisFixture {
  readonly url: string;
  stop(): Promise<void>;
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
  /** Node's bootstrap secret (a canary: it must never show in the controller's logs or jobs). */
  readonly secret: string;
  /** Authorization headers for the services' APIs. */
  headers(role: 'admin' | 'read'): { authorization: string };
  /** Moves the controllers' clock (never the real one). */
  advanceClock(ms: number): void;
  now(): number;
  /** Publishes `instance-ready` for each id (app `echo`, persistent, capacity 4) to the adapter. */
  addInstances(ids: string[]): Promise<void>;
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
  const { waitFor, findFreePort, baseEnv } = kit;
  const childEnv = (env: Record<string, string>) => ({ ...baseEnv, ...env });
  const prefix = `${name}-${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'drain-spec-'));
  const secretFile = join(dir, 'bootstrap-secret');
  const secret = `canary-bootstrap-${randomBytes(12).toString('hex')}`;
  await writeFile(secretFile, secret, { mode: 0o600 });
  const redis = await kit.startRedis();
  const backend = await startSseBackend();
  const [port, metricsPort, adapterPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
  const sim = startSupervisedSim({
    stateDir: join(dir, 'node-sim'),
    port,
    metricsPort,
    secretFile,
    runnerGrants: [`127.0.0.1:${backend.port}`],
    baseEnv,
    ...(options.heartbeat === undefined ? {} : { heartbeat: options.heartbeat }),
  });
  const started: Child[] = [sim.process];
  // A start that fails half-way stops what it started: no simulator or adapter outlives the spec.
  const orCleanUp = async (ready: Promise<unknown>): Promise<void> => {
    try {
      await ready;
    } catch (error) {
      for (const child of started.reverse()) await child.kill('SIGTERM');
      await backend.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  };
  const httpReady = (url: string) => () =>
    fetch(url)
      .then((response) => response.ok)
      .catch(() => false);
  await orCleanUp(
    waitFor(httpReady(`${sim.metricsUrl}/readyz`), {
      description: 'node-sim ready',
      timeoutMs: 60_000,
      intervalMs: 100,
    }),
  );
  const adapterEnv = childEnv({
    ...kit.access.env,
    REDIS_URL: redis.url,
    NODE_URL: sim.publicUrl,
    BOOTSTRAP_SECRET_FILE: secretFile,
    QUEUE_PREFIX: prefix,
    STATE_PREFIX: `${prefix}-adapter`,
    PORT: String(adapterPort),
    LOG_LEVEL: 'warn',
    COMMAND_TIMEOUT_MS: '20000',
  });
  const adapter: Child = spawnChild(['--import', 'tsx', ADAPTER_MAIN], adapterEnv);
  started.push(adapter);
  const adapterUrl = `http://127.0.0.1:${adapterPort}`;
  await orCleanUp(
    waitFor(httpReady(`${adapterUrl}/readyz`), {
      description: 'adapter ready',
      timeoutMs: 60_000,
      intervalMs: 100,
    }),
  );
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

  const controllerEnv = (env: Record<string, string> = {}) => ({
    ...kit.access.env,
    ADAPTER_TOKEN_FILE: kit.access.env.READ_TOKEN_FILE,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    KEY_PREFIX: `${prefix}-drain`,
    // One replica restarted in place: it takes its lease back at once.
    LEASE_HOLDER_ID: 'drain-controller-0',
    ADAPTER_URL: adapterUrl,
    REPLACE_COMMAND: sim.replaceCommand,
    NODE_READY_URL: `${sim.metricsUrl}/readyz`,
    POLL_MS: '100',
    STEP_LOCK_MS: '2000',
    STEP_STALLED_INTERVAL_MS: '500',
    DEFAULT_QUIET_PERIOD: '0s',
    NODE_READY_TIMEOUT_MS: '30000',
    PORT: '0',
    LOG_LEVEL: 'debug',
    NODE_ENV: 'test',
    DRAIN_DELAY_MS: '0',
    ...env,
  });

  return {
    redis,
    sim,
    backend,
    adapterUrl,
    prefix,
    secret,
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
    async runners() {
      const response = await fetch(`${adapterUrl}/v1/runners`, { headers: kit.access.headers('read') });
      return (await response.json()) as RunnersResponse;
    },
    controllerEnv,
    async startController(env = {}) {
      const lines: string[] = [];
      let parts: DrainParts | undefined;
      const { runtime, server } = await startService({
        name: 'drain-controller',
        configSchema: DrainConfigSchema,
        env: controllerEnv(env),
        compose: (context) =>
          composeDrainController(
            context,
            { driver: createDriver(context.config, childEnv({})), now },
            (exposed) => (parts = exposed),
          ),
        destination: { write: (line: string) => void lines.push(line) },
        signals: new EventEmitter(),
        exit: () => undefined,
      });
      if (parts === undefined) throw new Error('the controller exposed no parts');
      // Writes wait for the lease: the controller acts once it holds it (its readiness says so).
      await waitFor(() => !runtime.health.standby, { description: 'the controller to hold its lease' });
      const running: RunningController = {
        parts,
        url: `http://127.0.0.1:${boundPort(server)}`,
        logs: () => lines.join(''),
        async stop() {
          controllers.delete(running);
          server.closeAllConnections();
          await runtime.shutdown.run('spec done', 0);
        },
      };
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
      await adapter.kill('SIGTERM');
      await sim.process.kill('SIGTERM');
      await backend.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
