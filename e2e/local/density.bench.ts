// How many idle example-app instances one machine holds, and what each costs, on the stack as
// `npm start` runs it (local gVisor driver, so root). One reusable app is scaled to each count in turn
// (`--counts`, default 25,50,100,200); its memory request (`--memory`) and the stack's capacity
// accounting are set so that memory, not the CPU bookkeeping of a small host, is the limit. At each
// count, once every instance is ready and listed in Node's discovery: the sandboxes' PSS (sentry,
// gofer, the app's processes, conmon) and the host's used memory per instance, the fill rate, the
// control plane's CPU and RSS over a window, and the heartbeat start delay. Then the app is deleted
// and the time until nothing of it is left is measured.
import { randomInt } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import { exampleAppSpec, printFigure, startStack, waitFor, type StackProcess } from '@sandbox/testing';
import {
  DENSITY_APP,
  DENSITY_PREFIX,
  heartbeatBuckets,
  instanceStates,
  listedRunners,
  sandboxPss,
  stackProcesses,
  url,
} from './density-probes';
import { cpuTicks, histogramQuantile, hostTotalBytes, hostUsedBytes, rssBytes } from './host-processes';

const { values } = parseArgs({
  options: {
    counts: { type: 'string', default: '25,50,100,200' },
    memory: { type: 'string', default: '96Mi' },
    'window-s': { type: 'string', default: '30' },
  },
});
const COUNTS = values.counts.split(',').map(Number);
const WINDOW_MS = Number(values['window-s']) * 1_000;
const APP = DENSITY_APP;
const PREFIX = DENSITY_PREFIX;
const MB = 1024 * 1024;
/** What the host keeps for itself and the control plane when the capacity accounting is set. */
const HOST_RESERVE_MB = 2_048;
/** A fill that gains no ready instance for this long has met the host's limit. */
const STALL_MS = 90_000;
/** The heartbeat jitter target: a beat starting later than this after its due time is late. */
const LATE_S = 0.25;
const TICKS_PER_S = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || '100');

async function scaleTo(stack: StackProcess, image: string, count: number): Promise<void> {
  const spec = exampleAppSpec(
    image,
    { kind: 'reusable', capacity: 1, minReplicas: count, maxReplicas: count },
    // A whole core each (a quota, not a reservation: the capacity accounting allows 4096): a 10m quota
    // stretches the app's own start to about 12 s, which measures the quota, not the platform.
    { resources: { cpu: '1', memory: values.memory } },
  );
  const response = await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/apps/${APP}`), {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...(await stack.headers('admin')) },
    body: JSON.stringify(spec),
  });
  if (!response.ok)
    throw new Error(`PUT /v1/apps/${APP} answered ${response.status}: ${await response.text()}`);
}

/** Waits until `count` instances are ready (or the fill stalls); resolves with how many are ready. */
async function fill(stack: StackProcess, count: number): Promise<number> {
  let ready = 0;
  let progressAt = Date.now();
  for (;;) {
    const now = (await instanceStates(stack)).get('ready') ?? 0;
    if (now > ready) progressAt = Date.now();
    ready = now;
    if (ready >= count || Date.now() - progressAt > STALL_MS) return ready;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** CPU share and RSS of the control plane over the window, and the heartbeat delay p99 in it. */
async function measureWindow(stack: StackProcess, count: number): Promise<void> {
  const { controlPlane } = stackProcesses(stack);
  const pids = Object.entries(controlPlane).flatMap(([name, pid]) =>
    pid === undefined ? [] : [[name, pid] as const],
  );
  const ticksBefore = pids.map(([, pid]) => cpuTicks(pid));
  const beatsBefore = await heartbeatBuckets(stack);
  const startedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  const seconds = (Date.now() - startedAt) / 1_000;
  const beatsAfter = await heartbeatBuckets(stack);
  pids.forEach(([name, pid], index) => {
    const cpu = ((cpuTicks(pid) - (ticksBefore[index] ?? 0)) / TICKS_PER_S / seconds) * 100;
    printFigure(`density_${count}_${name}_cpu_percent`, cpu, 1);
    printFigure(`density_${count}_${name}_rss_mb`, rssBytes(pid) / MB, 1);
  });
  const total = (beatsAfter.get(Infinity) ?? 0) - (beatsBefore.get(Infinity) ?? 0);
  // The histogram's buckets bound the p99 from above; past its last bound only the share late is known.
  const p99 = histogramQuantile(beatsBefore, beatsAfter, 0.99);
  if (Number.isFinite(p99)) printFigure(`density_${count}_heartbeat_delay_p99_ms`, p99 * 1_000, total);
  else process.stderr.write(`heartbeat delay p99 at ${count}: ${p99} (beyond the histogram's buckets)\n`);
  const onTime = (beatsAfter.get(LATE_S) ?? 0) - (beatsBefore.get(LATE_S) ?? 0);
  if (total > 0) printFigure(`density_${count}_heartbeat_late_250ms_ratio`, 1 - onTime / total, total);
}

async function removeAll(stack: StackProcess): Promise<void> {
  const deletedAt = Date.now();
  await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/apps/${APP}`), {
    method: 'DELETE',
    headers: await stack.headers('admin'),
  });
  await waitFor(
    async () => {
      const states = await instanceStates(stack);
      const left = [...states].filter(([state]) => state !== 'gone').length;
      return left === 0 && stackProcesses(stack).sandboxes.length === 0;
    },
    { timeoutMs: 600_000, intervalMs: 250, description: 'every instance and sandbox gone' },
  );
  printFigure('density_remove_all_s', (Date.now() - deletedAt) / 1_000, 1);
}

if (process.getuid?.() !== 0) throw new Error('the density bench needs root (the local driver)');
const image = await ensureExampleAppImage();
const baseline = hostUsedBytes();
const stack = await startStack({
  env: {
    INSTANCE_PREFIX: PREFIX,
    INSTANCE_SUBNET: `10.222.${4 * randomInt(0, 63)}.0/22`,
    INSTANCE_CAPACITY_CPUS: '4096',
    INSTANCE_CAPACITY_MEMORY_MB: String(Math.floor(hostTotalBytes() / MB) - HOST_RESERVE_MB),
    LOG_LEVEL: 'warn',
  },
});
try {
  const stackBaseline = hostUsedBytes();
  process.stderr.write(
    `host used: ${(baseline / MB).toFixed(0)} MB before, ${(stackBaseline / MB).toFixed(0)} MB with the stack\n`,
  );
  let reached = 0;
  for (const count of COUNTS) {
    const filledAt = Date.now();
    await scaleTo(stack, image, count);
    const ready = await fill(stack, count);
    const fillSeconds = (Date.now() - filledAt) / 1_000;
    printFigure(
      `density_${count}_start_rate_instances_per_s`,
      (ready - reached) / fillSeconds,
      ready - reached,
    );
    await waitFor(async () => (await listedRunners(stack)) >= ready, {
      timeoutMs: 300_000,
      intervalMs: 250,
      description: `${ready} runners listed in discovery`,
    });
    printFigure(`density_${count}_all_listed_s`, (Date.now() - filledAt) / 1_000, ready);
    reached = ready;
    const pss = sandboxPss(stackProcesses(stack).sandboxes);
    const totalPss = Object.values(pss).reduce((sum, value) => sum + value, 0);
    printFigure(`density_${count}_pss_per_instance_mb`, totalPss / ready / MB, ready);
    for (const [role, bytes] of Object.entries(pss))
      printFigure(`density_${count}_pss_${role}_per_instance_mb`, bytes / ready / MB, ready);
    printFigure(
      `density_${count}_host_used_per_instance_mb`,
      (hostUsedBytes() - stackBaseline) / ready / MB,
      ready,
    );
    await measureWindow(stack, count);
    if (ready < count) {
      const states = JSON.stringify(Object.fromEntries(await instanceStates(stack)));
      process.stderr.write(
        `the host held ${ready} of ${count} (${states}): no progress for ${STALL_MS / 1_000} s\n`,
      );
      break;
    }
  }
  printFigure('density_max_instances_count', reached, 1);
  await removeAll(stack);
} finally {
  await stack.cleanup();
}
