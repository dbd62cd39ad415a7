// Benchmark: drains of 256 runners (Node's limit) on real Redis, the Node simulator (Node's 5 s heartbeat)
// and the adapter process. Figures: from the last session ending (the client's stop) to `replacing`
// with a zero quiet period, and from the new Node answering to every runner registered again.
// Run: npm run bench -- drain-controller [--rounds=3]
import { parseArgs } from 'node:util';
import type { DrainRecord } from '@sandbox/protocol';
import { createTestAccess, percentile, printFigure, waitFor } from '@sandbox/testing';
import { startDrainWorld, type DrainWorld } from './__fixtures__/drain-world';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } }, strict: false });
const ROUNDS = Number(values.rounds);
const RUNNERS = 256;
const HEARTBEAT_MS = 5_000;
// The children get no inherited environment; the replace command names every program by its full path.
const BASE_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp' };
const access = createTestAccess();
const ids = Array.from({ length: RUNNERS }, (_, index) => `bench-i-${index}`);

const registeredSince = async (world: DrainWorld, since: number) => {
  const { runners } = await world.runners();
  return (
    runners.length === RUNNERS &&
    runners.every(
      (runner) =>
        runner.state === 'registered' && runner.lastBeat !== null && Date.parse(runner.lastBeat.at) >= since,
    )
  );
};

/** When the replaced Node first answers: a new simulator process whose metrics listener is ready. */
async function newNodeReadyAt(world: DrainWorld, oldPid: number | undefined): Promise<number> {
  return waitFor(
    async () => {
      if (world.sim.pid() === oldPid) return undefined;
      const ok = await fetch(`${world.sim.metricsUrl}/readyz`)
        .then((response) => response.ok)
        .catch(() => false);
      return ok ? Date.now() : undefined;
    },
    { description: 'the new Node', timeoutMs: 120_000, intervalMs: 10 },
  );
}

async function round(world: DrainWorld, url: string): Promise<{ toReplacing: number; toRegistered: number }> {
  const reserved = await fetch(`${world.sim.publicUrl}/apps/${ids[0]}/session`, { method: 'POST' });
  const { session_id: sessionId } = (await reserved.json()) as { session_id: string };
  const created = await fetch(`${url}/v1/drains`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...access.headers('admin') },
    body: JSON.stringify({ window: '1h', quietPeriod: '0s', reason: 'bench', target: { restart: true } }),
  });
  const { id } = (await created.json()) as DrainRecord;
  const get = async () =>
    (await (
      await fetch(`${url}/v1/drains/${id}`, { headers: access.headers('read') })
    ).json()) as DrainRecord;
  await waitFor(async () => (await get()).sessions?.total === 1, {
    description: 'the session seen',
    timeoutMs: 60_000,
  });
  const oldPid = world.sim.pid();
  const endedAt = Date.now();
  await fetch(`${world.sim.publicUrl}/apps/${ids[0]}/session/${sessionId}/stop`, { method: 'POST' });
  const nodeReady = newNodeReadyAt(world, oldPid);
  const replacing = await waitFor(
    async () => (await get()).history.find((change) => change.phase === 'replacing'),
    { description: 'replacing', timeoutMs: 60_000, intervalMs: 10 },
  );
  const readyAt = await nodeReady;
  const registeredAt = await waitFor(
    async () => ((await registeredSince(world, readyAt)) ? Date.now() : undefined),
    {
      description: 'every runner registered again',
      timeoutMs: 120_000,
      intervalMs: 20,
    },
  );
  await waitFor(async () => (await get()).phase === 'done', {
    description: 'the drain done',
    timeoutMs: 60_000,
  });
  return { toReplacing: Date.parse(replacing.at) - endedAt, toRegistered: registeredAt - readyAt };
}

const summary = (name: string, samples: number[]) => {
  printFigure(`${name}_p50_ms`, percentile(samples, 50), samples.length);
  printFigure(`${name}_max_ms`, percentile(samples, 100), samples.length);
};

const world = await startDrainWorld(
  'drain-bench',
  { baseEnv: BASE_ENV, access },
  { heartbeat: { interval: '5s', ttl: '30s' } },
);
try {
  await world.addInstances(ids);
  await waitFor(() => registeredSince(world, 0), {
    description: '256 runners registered',
    timeoutMs: 180_000,
  });
  const controller = await world.startController({ POLL_MS: '100', LOG_LEVEL: 'warn' });
  const results = [];
  for (let index = 0; index < ROUNDS; index += 1) results.push(await round(world, controller.url));
  printFigure('drain_runners_count', RUNNERS, 1);
  printFigure('drain_heartbeat_interval_ms', HEARTBEAT_MS, 1);
  summary(
    'drain_last_session_to_replacing',
    results.map((result) => result.toReplacing),
  );
  summary(
    'drain_node_ready_to_all_registered',
    results.map((result) => result.toRegistered),
  );
} finally {
  await world.close();
  access.cleanup();
}
