// An in-process adapter (the same wiring as main.ts) on real Redis, plus typed access to its queues, for specs.
import {
  ADAPTER_COMMANDS_QUEUE,
  INSTANCE_EVENTS_QUEUE,
  SESSION_EVENTS_QUEUE,
  type InstanceReady,
} from '@sandbox/protocol';
import { createProducer, createRedisConnection, type Producer } from '@sandbox/queue';
import {
  accessPolicy,
  boundPort,
  runActiveParts,
  createServiceRuntime,
  listen,
  type ServiceRuntime,
} from '@sandbox/service-kit';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Server } from 'node:http';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { composeAdapter, type AdapterWiring } from '../service';
import { AdapterConfigSchema } from '../config';

/** Options of {@link startAdapter}. */
export interface AdapterHarnessOptions {
  redisUrl: string;
  nodeUrl: string;
  secretFile: string;
  /** BullMQ prefix and adapter key prefix (unique per spec file). */
  prefix: string;
  /** More environment, as `main.ts` would read it. */
  env?: Record<string, string>;
}

/** A running adapter. */
export interface AdapterHarness {
  readonly service: AdapterWiring;
  readonly runtime: ServiceRuntime;
  /** `http://127.0.0.1:<port>` of its API. */
  readonly url: string;
  /** Headers with the read token, for its API. */
  readonly headers: Record<string, string>;
  /** Every log line so far. */
  logs(): string;
  stop(): Promise<void>;
}

/** Starts an adapter like `main.ts` does, with logs kept in memory. */
export async function startAdapter(options: AdapterHarnessOptions): Promise<AdapterHarness> {
  const config = AdapterConfigSchema.parse({
    REDIS_URL: options.redisUrl,
    NODE_URL: options.nodeUrl,
    BOOTSTRAP_SECRET_FILE: options.secretFile,
    QUEUE_PREFIX: options.prefix,
    STATE_PREFIX: `${options.prefix}-adapter`,
    PORT: '0',
    LOG_LEVEL: 'debug',
    NODE_ENV: 'test',
    ADMIN_TOKEN_FILE: 'unused: the harness builds its access policy itself',
    READ_TOKEN_FILE: 'unused: the harness builds its access policy itself',
    ...options.env,
  });
  const lines: string[] = [];
  const runtime = createServiceRuntime({
    svc: 'adapter',
    logLevel: config.LOG_LEVEL,
    nodeEnv: config.NODE_ENV,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    destination: { write: (line: string) => void lines.push(line) },
    exit: () => undefined,
  });
  const tokens = { admin: `admin-${randomUUID()}`, read: `read-${randomUUID()}` };
  const service = await composeAdapter(
    { config, runtime, access: accessPolicy({ tokens, serviceName: 'adapter' }) },
    { bootstrapReloadIntervalMs: 0 },
  );
  const server: Server = await listen(service.app, { port: 0 });
  // As startService does: the registrations start once this process holds the adapter's lease.
  runActiveParts(runtime, service.activeParts);
  runtime.health.markReady();
  while (runtime.health.standby) await new Promise((resolve) => setTimeout(resolve, 10));
  return {
    service,
    runtime,
    url: `http://127.0.0.1:${boundPort(server)}`,
    headers: { authorization: `Bearer ${tokens.read}` },
    logs: () => lines.join(''),
    async stop() {
      runtime.health.markStopping();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.stop();
    },
  };
}

/** A job of `session-events` as stored. */
export interface StoredJob {
  id: string;
  name: string;
  data: Record<string, unknown>;
}

/** Producers for the adapter's input queues and a reader of its output queue. */
export interface AdapterQueues {
  instanceEvents: Producer<typeof INSTANCE_EVENTS_QUEUE>;
  commands: Producer<typeof ADAPTER_COMMANDS_QUEUE>;
  /** Every `session-events` job (no consumer runs in specs, so all of them stay). */
  sessionEvents(): Promise<StoredJob[]>;
  /** A finished command job's return value (or its failure). */
  commandOutcome(
    jobId: string,
  ): Promise<{ state: string; returnvalue: unknown; failedReason?: string } | undefined>;
  /** Every job's data of every queue, for "never in job data" checks. */
  allJobData(): Promise<string>;
  close(): Promise<void>;
}

export function openQueues(redisUrl: string, prefix: string): AdapterQueues {
  const logger = pino({ level: 'silent' });
  const connection: Redis = createRedisConnection(redisUrl, 'producer');
  const reader: Redis = createRedisConnection(redisUrl, 'worker');
  const instanceEvents = createProducer(INSTANCE_EVENTS_QUEUE, { connection, prefix, logger });
  const commands = createProducer(ADAPTER_COMMANDS_QUEUE, { connection, prefix, logger });
  const sessionQueue = new Queue(SESSION_EVENTS_QUEUE.name, { connection: reader, prefix });
  const states = ['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized'] as const;
  const jobsOf = async (queue: Queue): Promise<StoredJob[]> =>
    (await queue.getJobs([...states])).map((job) => ({
      id: String(job.id),
      name: job.name,
      data: job.data as Record<string, unknown>,
    }));
  return {
    instanceEvents,
    commands,
    sessionEvents: () => jobsOf(sessionQueue),
    async commandOutcome(jobId) {
      // The state first: a job read while active would show no return value.
      const state = await commands.queue.getJobState(jobId);
      const job = await commands.queue.getJob(jobId);
      if (job === undefined) return undefined;
      return {
        state,
        returnvalue: job.returnvalue,
        ...(job.failedReason ? { failedReason: job.failedReason } : {}),
      };
    },
    async allJobData() {
      const all = [
        ...(await jobsOf(sessionQueue)),
        ...(await jobsOf(instanceEvents.queue)),
        ...(await jobsOf(commands.queue)),
      ];
      return JSON.stringify(all);
    },
    async close() {
      await Promise.all([instanceEvents.close(), commands.close(), sessionQueue.close()]);
      await Promise.all([connection.quit(), reader.quit()]);
    },
  };
}

/** An `instance-ready` payload with defaults. */
export function readyEvent(instanceId: string, overrides: Partial<InstanceReady> = {}): InstanceReady {
  return {
    instanceId,
    app: 'echo',
    url: 'http://127.0.0.1:9/',
    capacity: 4,
    mode: 'persistent',
    kind: 'reusable',
    metadata: '{"role":"test"}',
    readyAt: new Date().toISOString(),
    ...overrides,
  };
}
