// Benchmark: 256 runners (Node's limit) heartbeating against the Node simulator through the adapter
// process (apps/adapter/src/main.ts). Figures: the adapter's CPU share of one core and RSS, heartbeat
// jitter as Node sees it (|time between two beats of a runner − interval|), and how long a Node
// crash takes to heal. The adapter runs as its pod does: the bundle, the image's environment, and
// the deployment's memory limit (a memory cgroup; Node sizes V8's heaps from it). `--memory-limit=none`
// runs it with the machine's memory instead.
// Run: node --import tsx apps/adapter/src/adapter.bench.ts [--seconds=60] [--memory-limit=pod|none]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { NodeLimits, type RunnersResponse } from '@sandbox/protocol';
import { NODE_IMAGE_ENV } from '@sandbox/sandbox-local';
import {
  createTestAccess,
  findFreePort,
  percentile,
  printFigure,
  startRedis,
  uniquePrefix,
  waitFor,
} from '@sandbox/testing';
import { openQueues, readyEvent } from './__fixtures__/adapter-harness';
import { bundleAdapter, spawnAdapter } from './__fixtures__/adapter-process';
import { benchMemoryCgroup } from './__fixtures__/pod-memory';
import { processMemory } from './__fixtures__/process-memory';
import { startFaultProxy } from './__fixtures__/fault-proxy';
import { startNodeSim } from './__fixtures__/node-sim-process';
import { canarySecret } from './__fixtures__/world';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    tsx: { type: 'boolean', default: false },
    // NODE_OPTIONS for the adapter: V8's defaults unless given (e.g. '--max-semi-space-size=4').
    'node-options': { type: 'string', default: '' },
    // Flags NODE_OPTIONS refuses (e.g. --single-threaded-gc), given on the command line.
    'node-args': { type: 'string', default: '' },
    profile: { type: 'string' },
    'memory-limit': { type: 'string', default: 'pod' },
  },
});
const WINDOW_S = Number(values.seconds);
const INTERVAL_MS = 5_000;
const WARMUP_MS = 2 * INTERVAL_MS;
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** The adapter's NODE_OPTIONS: the ones given, and profiling when asked. */
function nodeOptions(): string {
  const flags = values['node-options'] === '' ? [] : [values['node-options']];
  if (values.profile !== undefined) flags.push(`--cpu-prof --cpu-prof-dir=${values.profile}`);
  return flags.join(' ');
}

/** CPU seconds (user, system) of a process, from /proc. */
function cpuSeconds(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { user: Number(fields[11]) / CLOCK_TICKS, system: Number(fields[12]) / CLOCK_TICKS };
}

/** Resident set size of a process, in MB. */
function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/u.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

const arrivals = new Map<string, number[]>();
let recording = false;
let registered = 0;
const now = () => performance.timeOrigin + performance.now();

const redis = await startRedis();
const dir = await mkdtemp(join(tmpdir(), 'adapter-bench-'));
const secret = canarySecret();
const secretFile = join(dir, 'bootstrap-secret');
await writeFile(secretFile, secret);
const holder: { target?: string } = {};
const proxy = await startFaultProxy({
  target: () => holder.target ?? 'http://127.0.0.1:9',
  bootstrapSecret: secret,
  onRequest(req, body) {
    if (!recording || !(req.url ?? '').endsWith('/runners/heartbeat')) return;
    const id = (JSON.parse(body.toString('utf8')) as { runner_id?: string }).runner_id ?? '';
    arrivals.set(id, [...(arrivals.get(id) ?? []), now()]);
  },
  onRegistration: (status) => void (status === 200 && (registered += 1)),
});
const sim = await startNodeSim({
  secretFile,
  runnerServiceUrl: proxy.url,
  heartbeatInterval: '5s',
  heartbeatTtl: '30s',
});
holder.target = sim.publicUrl;
const prefix = uniquePrefix('adapter-bench');
const access = createTestAccess();
const port = await findFreePort();
// Measured as production runs it: one bundled file under plain node (`--tsx`: the dev entry instead).
const bundle = values.tsx ? undefined : await bundleAdapter(join(dir, 'adapter.mjs'));
const cgroup = await benchMemoryCgroup(values['memory-limit']);
const adapter = spawnAdapter(
  {
    ...NODE_IMAGE_ENV,
    NODE_OPTIONS: nodeOptions(),
    PORT: String(port),
    REDIS_URL: redis.url,
    NODE_URL: proxy.url,
    BOOTSTRAP_SECRET_FILE: secretFile,
    QUEUE_PREFIX: prefix,
    STATE_PREFIX: `${prefix}-adapter`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ...access.env,
  },
  {
    ...(bundle === undefined ? {} : { bundle }),
    ...(cgroup === undefined ? {} : { cgroup }),
    nodeArgs: values['node-args'].split(' ').filter((arg) => arg !== ''),
  },
);
const queues = openQueues(redis.url, prefix);
const runners = async (): Promise<RunnersResponse['runners']> =>
  (
    (await (
      await fetch(`http://127.0.0.1:${port}/v1/runners`, { headers: access.headers('read') })
    ).json()) as RunnersResponse
  ).runners;

try {
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, {
    description: 'the adapter',
    timeoutMs: 30_000,
  });
  // Before any runner: what loading and starting cost (adapter-idle.bench.ts samples this at length).
  const idle = await processMemory(adapter.pid ?? 0);
  const ids = Array.from({ length: NodeLimits.maxRunners }, (_, index) => `bench-${index}`);
  const enqueued = now();
  await Promise.all(
    ids.map((id) => queues.instanceEvents.add('instance-ready', readyEvent(id, { capacity: 4 }))),
  );
  await waitFor(async () => registered >= ids.length, {
    description: 'all registered',
    timeoutMs: 60_000,
    intervalMs: 10,
  });
  const registerSeconds = (now() - enqueued) / 1_000;
  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));

  const pid = adapter.pid ?? 0;
  recording = true;
  const cpuStart = cpuSeconds(pid);
  const wallStart = now();
  const rss: number[] = [];
  while (now() - wallStart < WINDOW_S * 1_000) {
    rss.push(rssMb(pid));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const cpuEnd = cpuSeconds(pid);
  const wallSeconds = (now() - wallStart) / 1_000;
  const userShare = ((cpuEnd.user - cpuStart.user) / wallSeconds) * 100;
  const systemShare = ((cpuEnd.system - cpuStart.system) / wallSeconds) * 100;
  recording = false;

  const jitter = [...arrivals.values()].flatMap((times) =>
    times.slice(1).map((time, index) => Math.abs(time - (times[index] ?? time) - INTERVAL_MS)),
  );
  const beats = [...arrivals.values()].reduce((sum, times) => sum + times.length, 0);

  registered = 0;
  await sim.stop('SIGKILL');
  await sim.start();
  const restarted = now();
  await waitFor(async () => registered >= ids.length, {
    description: 'all re-registered',
    timeoutMs: 60_000,
    intervalMs: 5,
  });
  const restoreSeconds = (now() - restarted) / 1_000;
  const healthy = (await runners()).filter((view) => view.state === 'registered').length;

  // One measurement each for the window-wide figures; jitter and RSS are per interval and per second.
  printFigure('adapter_idle_rss_mb', idle.rssMb, 1);
  printFigure('adapter_registered_runners_count', healthy, 1);
  printFigure('adapter_register_256_s', registerSeconds, ids.length);
  printFigure('adapter_cpu_percent', userShare + systemShare, 1);
  printFigure('adapter_cpu_user_percent', userShare, 1);
  printFigure('adapter_cpu_system_percent', systemShare, 1);
  printFigure('adapter_rss_max_mb', Math.max(...rss), rss.length);
  printFigure('adapter_heartbeats_per_s', beats / WINDOW_S, beats);
  printFigure('adapter_heartbeat_jitter_p50_ms', percentile(jitter, 50), jitter.length);
  printFigure('adapter_heartbeat_jitter_p99_ms', percentile(jitter, 99), jitter.length);
  printFigure('adapter_heartbeat_jitter_max_ms', percentile(jitter, 100), jitter.length);
  printFigure('adapter_node_restart_restore_256_s', restoreSeconds, ids.length);
  process.stderr.write(
    `${bundle === undefined ? 'tsx dev entry' : 'bundled main.ts'}, NODE_OPTIONS="${nodeOptions()}", ` +
      `memory limit ${cgroup === undefined ? 'none (the machine)' : `the pod's (${cgroup.path})`}, ` +
      `window ${WINDOW_S} s, interval ${INTERVAL_MS} ms, ${jitter.length} intervals measured\n`,
  );
} finally {
  await adapter.kill('SIGTERM');
  await cgroup?.remove();
  await queues.close();
  await sim.stop();
  await proxy.close();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
  access.cleanup();
}
