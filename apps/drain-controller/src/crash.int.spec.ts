// kill -9 of the drain-controller at random points across many drains: every drain must end `done`,
// Node must be replaced exactly once per drain, and no session may be cut before its deadline.
// DRAIN_CRASH_DRAINS sets the number of drains (scripts/crash-soak.sh runs 200).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DrainRecord } from '@sandbox/protocol';
import { createTestAccess, findFreePort, waitFor } from '@sandbox/testing';
import { startDrainWorld, type DrainWorld } from './__fixtures__/drain-world';
import { DRAIN_MAIN, spawnChild, type Child } from './__fixtures__/processes';
import { followDrainWhileKilling, seededRandom } from './__fixtures__/killing-loop';
import { openSse, type SseClient } from './__fixtures__/sse-backend';

const DRAINS = Number(process.env.DRAIN_CRASH_DRAINS ?? 20);
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
const INSTANCES = ['crash-i-1', 'crash-i-2'];
const access = createTestAccess();

let world: DrainWorld;
let port: number;
let controller: Child | undefined;
let kills = 0;
// Seeded, so a failing run can be replayed with DRAIN_CRASH_SEED.
const SEED = Number(process.env.DRAIN_CRASH_SEED ?? Date.now() % 100_000);
const random = seededRandom(SEED);

const controllerUrl = () => `http://127.0.0.1:${port}`;
const startController = () => {
  controller = spawnChild(['--import', 'tsx', DRAIN_MAIN], {
    ...BASE_ENV,
    ...world.controllerEnv({ PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production' }),
  });
};
const killController = async () => {
  kills += 1;
  await controller?.kill('SIGKILL');
  startController();
};
const readDrain = async (id: string): Promise<DrainRecord | undefined> => {
  try {
    const response = await fetch(`${controllerUrl()}/v1/drains/${id}`, {
      headers: access.headers('read'),
      signal: AbortSignal.timeout(2_000),
    });
    return response.ok ? ((await response.json()) as DrainRecord) : undefined;
  } catch {
    return undefined;
  }
};
const simStarts = () => world.sim.process.output().split('"node-sim listening"').length - 1;
const allRegistered = async () => {
  const { runners } = await world.runners();
  return runners.length === INSTANCES.length && runners.every((runner) => runner.state === 'registered');
};

async function openSession(): Promise<SseClient> {
  const runnerId = INSTANCES[0] ?? '';
  const reserved = await fetch(`${world.sim.publicUrl}/apps/${runnerId}/session`, { method: 'POST' });
  const { session_id: sessionId } = (await reserved.json()) as { session_id: string };
  const sse = await openSse(`${world.sim.publicUrl}/apps/${runnerId}/session/${sessionId}/app/events`);
  await waitFor(
    async () => (await world.runners()).runners.some((runner) => runner.sessions.includes(sessionId)),
    {
      description: 'the session seen by the adapter',
      timeoutMs: 10_000,
    },
  );
  return sse;
}

/** Runs one drain to its end while killing the controller at random moments. */
async function crashingDrain(withSession: boolean): Promise<{ record: DrainRecord; sse?: SseClient }> {
  const sse = withSession ? await openSession() : undefined;
  await waitFor(
    () =>
      fetch(`${controllerUrl()}/readyz`)
        .then((r) => r.ok)
        .catch(() => false),
    {
      description: 'the controller ready',
      timeoutMs: 30_000,
      intervalMs: 50,
    },
  );
  const created = await fetch(`${controllerUrl()}/v1/drains`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...access.headers('admin') },
    body: JSON.stringify({
      window: '2s',
      quietPeriod: '0s',
      reason: 'crash test',
      target: { restart: true },
    }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as DrainRecord;
  const record = await followDrainWhileKilling({
    id,
    read: readDrain,
    random,
    shouldKill: (crashes) => crashes < 3 && random() < 0.6,
    kill: killController,
  });
  return { record, ...(sse ? { sse } : {}) };
}

beforeAll(async () => {
  world = await startDrainWorld('drain-crash', { baseEnv: BASE_ENV, access });
  port = await findFreePort();
  await world.registerInstances(INSTANCES);
  startController();
}, 120_000);

afterAll(async () => {
  await controller?.kill('SIGKILL');
  await world?.close();
  access.cleanup();
});

describe('kill -9 of the drain-controller', () => {
  it(
    `never loses a drain, replaces Node once per drain and cuts no session early (${DRAINS} drains)`,
    async () => {
      for (let drain = 0; drain < DRAINS; drain += 1) {
        const startsBefore = simStarts();
        const { record, sse } = await crashingDrain(drain % 2 === 0);
        const context = `drain ${drain} (seed ${SEED}): ${JSON.stringify(record.history)}`;
        expect([record.phase, context]).toEqual(['done', context]);
        await waitFor(() => simStarts() > startsBefore, {
          description: 'the new Node listening',
          timeoutMs: 10_000,
        });
        expect([simStarts() - startsBefore, context]).toEqual([1, context]);
        if (sse !== undefined) {
          await waitFor(() => sse.endedAt(), { description: 'the session cut', timeoutMs: 10_000 });
          expect(sse.endedAt()).toBeGreaterThanOrEqual(Date.parse(record.deadline));
        }
        await waitFor(allRegistered, { description: 'every instance registered again', timeoutMs: 20_000 });
      }
      expect(kills).toBeGreaterThan(0);
    },
    60_000 + DRAINS * 60_000,
  );
});
