// What a client waits when many arrive at once: bursts of reservations through Node's public API, as
// the official Python SDK makes them, against a single-session app with a warm pool (warmPool 10,
// max 60) on the stack as `npm start` runs it (local gVisor driver, so root). Each burst (`--bursts`,
// default 10,50,100) starts its clients evenly within one second; each reserves, reads the first byte
// of the example app's SSE stream through Node and stops, which ends its instance (single-session)
// and makes the pool start a replacement. Between bursts the pool is full again.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DiscoveryResponseSchema, InstanceListSchema } from '@sandbox/protocol';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import {
  ensureSdkVenv,
  exampleAppSpec,
  percentile,
  printFigure,
  startStack,
  waitFor,
  type StackProcess,
} from '@sandbox/testing';
import { z } from 'zod';

const { values } = parseArgs({ options: { bursts: { type: 'string', default: '10,50,100' } } });
const BURSTS = values.bursts.split(',').map(Number);
const APP = 'admission';
const WARM_POOL = 10;
const SPREAD_MS = 1_000;
const RETRY_FOR_S = 120;

const ClientResultSchema = z.union([
  z.object({
    ok: z.literal(true),
    reserveToFirstByteMs: z.number(),
    noRunnerFirst: z.boolean(),
    waitedMs: z.number(),
  }),
  z.object({ ok: z.literal(false), gaveUpAfterMs: z.number().optional(), error: z.string().optional() }),
]);

const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;

async function instances(stack: StackProcess) {
  const response = await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/instances?app=${APP}`), {
    headers: await stack.headers('read'),
  });
  return InstanceListSchema.parse(await response.json()).instances;
}

async function listed(stack: StackProcess): Promise<number> {
  const response = await fetch(url(stack.ports.NODE_SIM_PORT, '/discovery'));
  const entries = DiscoveryResponseSchema.parse(await response.json());
  return entries.flatMap((entry) => entry.runners).filter((runner) => runner.app === APP).length;
}

/** Resolves when the warm pool is full and all of it listed by Node; with the time it took. */
async function poolFull(stack: StackProcess, since: number): Promise<number> {
  await waitFor(
    async () =>
      (await instances(stack)).filter((instance) => instance.state === 'ready').length >= WARM_POOL &&
      (await listed(stack)) >= WARM_POOL,
    { timeoutMs: 600_000, intervalMs: 50, description: 'the warm pool full and listed' },
  );
  return (Date.now() - since) / 1_000;
}

function runBurst(python: string, stack: StackProcess, clients: number) {
  const script = resolve(import.meta.dirname, 'admission_client.py');
  const orchestrator = url(stack.ports.NODE_SIM_PORT, '');
  const run = spawnSync(
    python,
    [script, orchestrator, APP, String(clients), String(SPREAD_MS), String(RETRY_FOR_S)],
    { encoding: 'utf8', timeout: (RETRY_FOR_S + 120) * 1_000 },
  );
  if (run.status !== 0)
    throw new Error(`the burst client failed (${run.status}): ${run.stderr.slice(-2_000)}`);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => ClientResultSchema.parse(JSON.parse(line)));
}

async function burst(python: string, stack: StackProcess, clients: number): Promise<void> {
  const startedAt = Date.now();
  const results = runBurst(python, stack, clients);
  const endedAt = Date.now();
  const served = results.flatMap((result) => (result.ok ? [result] : []));
  const latencies = served.map((result) => result.reserveToFirstByteMs);
  const name = (metric: string) => `admission_burst_${clients}_${metric}`;
  for (const p of [50, 95, 99])
    printFigure(name(`reserve_to_first_byte_p${p}_ms`), percentile(latencies, p), latencies.length);
  const waited = served.filter((result) => result.noRunnerFirst).map((result) => result.waitedMs);
  printFigure(name('no_runner_count'), waited.length, clients);
  if (waited.length > 0) {
    printFigure(name('no_runner_wait_p50_ms'), percentile(waited, 50), waited.length);
    printFigure(name('no_runner_wait_p99_ms'), percentile(waited, 99), waited.length);
  }
  printFigure(name('unserved_count'), results.length - served.length, clients);
  for (const result of results) if (!result.ok) process.stderr.write(`unserved: ${JSON.stringify(result)}\n`);
  printFigure(name('pool_full_again_s'), await poolFull(stack, endedAt), 1);
  const refilled = (await instances(stack)).filter(
    (instance) => instance.readyAt !== undefined && Date.parse(instance.readyAt) > startedAt,
  );
  const lastReady = Math.max(...refilled.map((instance) => Date.parse(instance.readyAt ?? '')));
  if (refilled.length > 0)
    printFigure(
      name('refill_instances_per_s'),
      refilled.length / ((lastReady - startedAt) / 1_000),
      refilled.length,
    );
}

if (process.getuid?.() !== 0) throw new Error('the admission bench needs root (the local driver)');
const image = await ensureExampleAppImage();
const python = ensureSdkVenv();
const stack = await startStack({
  env: {
    INSTANCE_PREFIX: 'eam',
    INSTANCE_SUBNET: `10.223.${4 * randomInt(0, 63)}.0/22`,
    // Sixty instances of a tenth of a CPU: the CPU bookkeeping of a 2-core host must not be the limit.
    INSTANCE_CAPACITY_CPUS: '64',
    LOG_LEVEL: 'warn',
  },
});
try {
  const spec = exampleAppSpec(
    image,
    { kind: 'single-session', warmPool: WARM_POOL, max: 60 },
    { resources: { cpu: '100m', memory: '128Mi' } },
  );
  const put = await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/apps/${APP}`), {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...(await stack.headers('admin')) },
    body: JSON.stringify(spec),
  });
  if (!put.ok) throw new Error(`PUT /v1/apps/${APP} answered ${put.status}: ${await put.text()}`);
  process.stderr.write(`warm pool ready in ${(await poolFull(stack, Date.now())).toFixed(1)} s\n`);
  for (const clients of BURSTS) await burst(python, stack, clients);
  await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/apps/${APP}`), {
    method: 'DELETE',
    headers: await stack.headers('admin'),
  });
} finally {
  await stack.cleanup();
}
