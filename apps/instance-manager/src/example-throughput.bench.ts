// HTTP requests per second of the example app (`GET /echo`, 32 keep-alive connections) in a gVisor
// instance started the way the instance-manager starts it, against the same bundle run natively. With
// two CPUs or more the server (native Node, or podman with everything it starts) runs on CPU 0 and the
// load generator, a process of its own, on CPU 1. Measures the runsc options that matter: the platform
// (systrap, ptrace, KVM where it runs), directfs, the root overlay, the sentry's GOMAXPROCS (from the
// CPU quota, or from the CPUs it may run on), and Debian's runsc. Root. Run:
//   node --import tsx apps/instance-manager/src/example-throughput.bench.ts
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildProcess } from '@sandbox/process';
import { AppSpecSchema } from '@sandbox/protocol';
import {
  EXAMPLE_APP,
  createLocalDriver,
  runCommand,
  waitForReady,
  type RuntimeCandidate,
} from '@sandbox/sandbox-local';
import { bundleNodeApp, canRunSandbox } from '@sandbox/sandbox-local/testing';
import { monotonicClock } from '@sandbox/service-kit';
import { findFreePort, parentEnv, printFigure } from '@sandbox/testing';
import { pino } from 'pino';
import { DEBIAN_RUNSC, chooseLocalRuntime } from './drivers/local-runtime-choice';
import { createLocalRuntime } from './drivers/local-runtime';
import {
  pinned,
  pinnedPodman,
  pinnedRequestsPerSecond,
  planCpus,
  type CpuPlan,
  type PinnedResult,
} from './test-support/cpu-pinning.fixture';
import { cgroupCpuSeconds, processCpuSeconds } from './test-support/server-cpu.fixture';
import { exampleAppSpec, exampleImage } from './test-support/local-host.fixture';

const PINNED = planCpus();
const UNPINNED: CpuPlan = {};
const LOAD = { connections: 32, warmupMs: 1_000, durationMs: 3_000, env: parentEnv() };
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
const logger = pino({ level: 'silent' });

const requests = (rps: number): number => Math.round((rps * LOAD.durationMs) / 1_000);

/** Both ratios of one measurement: requests/s, and requests per CPU-second of the server. */
function ratios(label: string, gvisor: PinnedResult, native: PinnedResult): void {
  const name = label === '' ? 'gvisor' : `gvisor_${label}`;
  printFigure(`${name}_native_rps_ratio`, gvisor.rps / native.rps, requests(gvisor.rps));
  printFigure(
    `${name}_native_rps_per_cpu_ratio`,
    gvisor.perCpuSecond / native.perCpuSecond,
    requests(gvisor.rps),
  );
}

async function nativeRps(cpus = PINNED): Promise<PinnedResult> {
  const dir = await mkdtemp(join(tmpdir(), 'im-bench-'));
  const file = join(dir, 'main.mjs');
  await writeFile(file, await bundleNodeApp(EXAMPLE_APP.entryFile));
  const port = await findFreePort();
  const child = startChildProcess(...pinned(cpus.server, process.execPath, [file]), {
    env: { PORT: String(port), HOST: '127.0.0.1' },
    keepChars: 0,
  });
  try {
    await waitForReady({ address: '127.0.0.1', port }, HEALTH, { clock: monotonicClock });
    const pid = child.pid ?? Number.NaN;
    const target = { host: '127.0.0.1', port, path: '/echo' };
    return await pinnedRequestsPerSecond(target, { ...LOAD, cpu: cpus.load }, () => processCpuSeconds(pid));
  } finally {
    await child.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The pid podman reports for the instance's container: the sandbox, in the container's cgroup. */
async function sandboxPid(instanceId: string): Promise<number> {
  const { stdout } = await runCommand('podman', [
    'ps',
    '-q',
    '--filter',
    `label=sandbox.instance=${instanceId}`,
  ]);
  const id = stdout.trim().split('\n')[0] ?? '';
  const inspected = await runCommand('podman', ['inspect', '--format', '{{.State.Pid}}', id]);
  return Number(inspected.stdout.trim());
}

async function gvisorRps(runtime: RuntimeCandidate, image: string, cpus = PINNED): Promise<PinnedResult> {
  const driver = createLocalRuntime(
    createLocalDriver({
      logger,
      prefix: 'imt',
      subnet: '10.216.5.0/24',
      run: pinnedPodman(cpus.server),
      ...runtime,
    }),
  );
  const spec = AppSpecSchema.parse(
    exampleAppSpec(
      image,
      { kind: 'reusable', capacity: 1, minReplicas: 1, maxReplicas: 1 },
      { resources: { cpu: '2', memory: '512Mi' } },
    ),
  );
  const request = { instanceId: 'benchthru1', app: 'bench', templateHash: 'bench', spec };
  try {
    const { url } = await driver.start(request);
    const ready = await driver.waitForReady(
      { instanceId: request.instanceId, ...(url ? { url } : {}) },
      spec,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const target = new URL(ready.url);
    const pid = await sandboxPid(request.instanceId);
    return await pinnedRequestsPerSecond(
      { host: target.hostname, port: Number(target.port), path: '/echo' },
      { ...LOAD, cpu: cpus.load },
      () => cgroupCpuSeconds(pid),
    );
  } finally {
    await driver.stop({ instanceId: request.instanceId });
  }
}

/** The options measured against the chosen runtime, each changing one thing. */
function variants(chosen: RuntimeCandidate): [string, RuntimeCandidate][] {
  const built = chosen.runtimeFlags.includes('platform=systrap') ? chosen.runscPath : undefined;
  if (!built) return [];
  const flags = chosen.runtimeFlags.filter((flag) => !flag.startsWith('platform='));
  const withFlags = (...more: string[]): RuntimeCandidate => ({
    runscPath: built,
    runtimeFlags: [...chosen.runtimeFlags, ...more],
  });
  return [
    ['ptrace', { runscPath: built, runtimeFlags: [...flags, 'platform=ptrace'] }],
    ['kvm', { runscPath: built, runtimeFlags: [...flags, 'platform=kvm'] }],
    ['no_directfs', withFlags('directfs=false')],
    ['no_overlay', withFlags('overlay2=none')],
    ['memory_overlay', withFlags('overlay2=root:memory')],
    ['gomaxprocs_from_cpus', withFlags('cpu-num-from-quota=false')],
    // runsc's own network stack in place of the namespace's host stack (the driver sets network=host).
    ['netstack', withFlags('network=sandbox')],
  ];
}

/**
 * One option against native Node measured just before it: the machine is shared, so throughput drifts
 * between runs and each ratio is taken against the nearest native figure.
 */
async function ratioToNative(label: string, runtime: RuntimeCandidate, image: string): Promise<void> {
  if (!(await canRunSandbox(runCommand, runtime, 10_000))) {
    process.stderr.write(`${label}: cannot run a sandbox on this host (${runtime.runtimeFlags.join(' ')})\n`);
    return;
  }
  const native = await nativeRps();
  try {
    ratios(label, await gvisorRps(runtime, image), native);
  } catch (error) {
    process.stderr.write(`${label}: the example app did not serve (${String(error)})\n`);
  }
}

process.stderr.write(`cpus: server ${PINNED.server ?? 'any'}, load generator ${PINNED.load ?? 'any'}\n`);
const image = await exampleImage();
const native = await nativeRps();
printFigure('gvisor_native_example_req_per_s', native.rps, requests(native.rps));
printFigure('gvisor_native_example_req_per_cpu_second_count', native.perCpuSecond, requests(native.rps));
const chosen = await chooseLocalRuntime('auto', false, { logger });
process.stderr.write(`chosen: ${chosen.runscPath} ${chosen.runtimeFlags.join(' ')}\n`);
const chosenRps = await gvisorRps(chosen, image);
printFigure('gvisor_example_req_per_s', chosenRps.rps, requests(chosenRps.rps));
printFigure('gvisor_example_req_per_cpu_second_count', chosenRps.perCpuSecond, requests(chosenRps.rps));
ratios('', chosenRps, native);
const measured: [string, RuntimeCandidate][] = [...variants(chosen), ['debian_ptrace', DEBIAN_RUNSC]];
for (const [label, runtime] of measured) if (runtime !== chosen) await ratioToNative(label, runtime, image);
if (PINNED.server !== undefined) {
  // The same with no pinning at all: server and load generator share both CPUs, as they did before.
  const free = await nativeRps(UNPINNED);
  ratios('unpinned', await gvisorRps(chosen, image, UNPINNED), free);
}
