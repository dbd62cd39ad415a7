// A burst of single-shot calls through the simulator: every session event reaches `session-events`
// once, from O2R, in an order whose running count is exact.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { guardProcessGroup } from '@sandbox/process';
import { SESSION_EVENTS_QUEUE } from '@sandbox/protocol';
import { createRedisConnection } from '@sandbox/queue';
import {
  createTestAccess,
  findFreePort,
  startRedis,
  uniquePrefix,
  waitFor,
  type RedisFixture,
} from '@sandbox/testing';
import { Worker } from 'bullmq';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openQueues, readyEvent } from './__fixtures__/adapter-harness';
import { spawnAdapter, type AdapterProcess } from './__fixtures__/adapter-process';
import { startNodeSim, type NodeSimProcess } from './__fixtures__/node-sim-process';
import { canarySecret, metricValue, runnerView } from './__fixtures__/world';

const CALLS = 100;
/** One call every 10 ms: 100 in one second, overlapping (each lasts 5-35 ms). */
const CALL_EVERY_MS = 10;
const prefix = uniquePrefix('adapter-burst');
const access = createTestAccess();
const api = () => ({ url: adapterUrl, headers: access.headers('read') });

let redis: RedisFixture;
let dir: string;
let sim: NodeSimProcess;
let adapter: AdapterProcess;
let adapterUrl: string;
let runnerApp: ChildProcess;

/** Answers every call after 5-35 ms, so sessions overlap; prints its port. */
const RUNNER_APP = `
const server = require('node:http').createServer((req, res) => {
  setTimeout(() => res.end('ok'), 5 + Math.floor(Math.random() * 30));
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** The runner in its own process: its answers (hence the releases) are not held up by this one's work. */
async function startRunnerApp(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', RUNNER_APP], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Killed with its group if this process dies first (a killed test runner runs no afterAll).
  if (child.pid !== undefined) {
    const guard = guardProcessGroup(child.pid);
    child.once('exit', () => guard.release());
  }
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`runner app exited (${code})`)));
  });
  return { child, port };
}

beforeAll(async () => {
  redis = await startRedis();
  const app = await startRunnerApp();
  runnerApp = app.child;
  dir = await mkdtemp(join(tmpdir(), 'adapter-burst-'));
  const secretFile = join(dir, 'bootstrap-secret');
  await writeFile(secretFile, canarySecret(), { mode: 0o600 });
  // A long heartbeat interval: no heartbeat can correct a lost event during the burst.
  sim = await startNodeSim({
    secretFile,
    heartbeatInterval: '60s',
    heartbeatTtl: '180s',
    extraArgs: ['--runner-grant', `127.0.0.1:${app.port}`],
  });
  // Its own process, as in production: the burst's clients share no event loop with it.
  const port = await findFreePort();
  adapterUrl = `http://127.0.0.1:${port}`;
  adapter = spawnAdapter({
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    REDIS_URL: redis.url,
    NODE_URL: sim.publicUrl,
    BOOTSTRAP_SECRET_FILE: secretFile,
    QUEUE_PREFIX: prefix,
    STATE_PREFIX: `${prefix}-adapter`,
    LOG_LEVEL: 'info',
    ...access.env,
  });
  await waitFor(async () => (await fetch(`${adapterUrl}/readyz`).catch(() => undefined))?.status === 200, {
    description: 'the adapter to be ready',
    timeoutMs: 30_000,
  });
  const queues = openQueues(redis.url, prefix);
  await queues.instanceEvents.add(
    'instance-ready',
    readyEvent('burst-1', { capacity: CALLS, mode: 'single-shot', url: `http://127.0.0.1:${app.port}/` }),
  );
  await queues.close();
  await waitFor(async () => (await runnerView(api(), 'burst-1'))?.o2r.connected === true, {
    description: 'the O2R subscription',
    timeoutMs: 20_000,
  });
});

afterAll(async () => {
  await adapter?.kill('SIGTERM');
  await sim?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  runnerApp?.kill('SIGKILL');
  await redis?.stop();
  access.cleanup();
});

/** Consumes `session-events` one job at a time, as instance-manager counts them. */
function countSessions() {
  const live = new Set<string>();
  const ever = new Set<string>();
  const tally = { events: 0, fromO2R: 0, releasedUnknown: 0, peak: 0 };
  const violations: string[] = [];
  const connection = createRedisConnection(redis.url, 'worker');
  const worker = new Worker(
    SESSION_EVENTS_QUEUE.name,
    async (job) => {
      const { sessionId, source } = job.data as { sessionId: string; source: string };
      tally.events += 1;
      if (source === 'o2r') tally.fromO2R += 1;
      if (job.name === 'session-reserved') {
        if (ever.has(sessionId)) violations.push(`reserved twice or after its release: ${sessionId}`);
        live.add(sessionId);
        ever.add(sessionId);
      } else if (job.name === 'session-released') {
        if (!live.delete(sessionId)) tally.releasedUnknown += 1;
        ever.add(sessionId);
      }
      tally.peak = Math.max(tally.peak, live.size);
    },
    { connection, prefix, concurrency: 1 },
  );
  return {
    live,
    ever,
    tally,
    violations,
    async close() {
      await worker.close();
      await connection.quit();
    },
  };
}

async function singleShot(runnerId: string): Promise<number> {
  const response = await fetch(`${sim.publicUrl}/apps/${runnerId}/app/call`);
  await response.text();
  return response.status;
}

const o2rPublished = async (): Promise<number> =>
  (await metricValue(adapterUrl, 'adapter_session_events_total', { event: 'reserved', source: 'o2r' })) +
  (await metricValue(adapterUrl, 'adapter_session_events_total', { event: 'released', source: 'o2r' }));

describe('session accounting under a burst', () => {
  it(`accounts exactly for ${CALLS} single-shot calls in one second`, async () => {
    const { runnerId } = (await runnerView(api(), 'burst-1')) ?? { runnerId: '' };
    const counter = countSessions();
    try {
      const calls: Array<Promise<number>> = [];
      for (let index = 0; index < CALLS; index += 1) {
        calls.push(singleShot(runnerId));
        await new Promise((resolve) => setTimeout(resolve, CALL_EVERY_MS));
      }
      expect(new Set(await Promise.all(calls))).toEqual(new Set([200]));
      // Within the 60 s heartbeat interval (the first periodic beat comes 30-60 s after registering):
      // only O2R, or the heartbeat a gap triggers at once, can have done it. Generous for a loaded host.
      await waitFor(
        async () =>
          counter.live.size === 0 &&
          counter.tally.events === (await o2rPublished()) + (await heartbeatPublished()) &&
          (await runnerView(api(), 'burst-1'))?.sessions.length === 0,
        { description: 'every session counted as ended', timeoutMs: 20_000 },
      );
      const lost = await metricValue(adapterUrl, 'adapter_o2r_lost_segments_total');
      expect(counter.violations).toEqual([]);
      expect(counter.tally.peak).toBeLessThanOrEqual(CALLS);
      // Each of the 200 events is published once: from O2R, or, when Node evicted its segment before
      // any reader could ask for it (more than four written within one read's round trip), from the
      // heartbeat that gap triggers at once (which may also learn a few before O2R delivers them).
      expect(counter.tally.fromO2R).toBe(await o2rPublished());
      expect(counter.tally.events).toBeLessThanOrEqual(2 * CALLS);
      expect(counter.tally.events + lost).toBeGreaterThanOrEqual(2 * CALLS);
      if (lost === 0) expect(counter.tally.fromO2R).toBe(2 * CALLS);
      expect(counter.tally.releasedUnknown).toBeLessThanOrEqual(lost);
      expect(counter.ever.size).toBeGreaterThanOrEqual(CALLS - lost);
      process.stdout.write(
        `session burst: ${counter.tally.fromO2R} of ${2 * CALLS} events from O2R, ` +
          `${counter.tally.events - counter.tally.fromO2R} from heartbeats, ${lost} segments lost\n`,
      );
    } finally {
      await counter.close();
    }
  });
});

const heartbeatPublished = async (): Promise<number> =>
  (await metricValue(adapterUrl, 'adapter_session_events_total', {
    event: 'reserved',
    source: 'heartbeat-reconcile',
  })) +
  (await metricValue(adapterUrl, 'adapter_session_events_total', {
    event: 'released',
    source: 'heartbeat-reconcile',
  }));
