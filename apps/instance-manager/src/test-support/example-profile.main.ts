// Profiling aid: one example-app instance under the chosen runsc with extra runsc flags (argv), a
// fixed closed-loop load, then requests, server CPU-seconds and requests per CPU-second. Root. Run:
//   node --import tsx apps/instance-manager/src/test-support/example-profile.main.ts [--duration-ms=5000] [--hold]
//     [--app-env=KEY=VALUE ...] [runsc-flag ...]
// e.g. `debug debug-log=/tmp/x/ strace` (syscalls the app makes) or `profile profile-cpu=/tmp/cpu.prof`
// (the sentry's CPU profile; `profile` loosens the sandbox's seccomp filter, for measuring only).
// With --hold it waits for a line on stdin before and after the load (to attach `runsc debug`).
import { parseArgs } from 'node:util';
import { AppSpecSchema } from '@sandbox/protocol';
import { createLocalDriver, runCommand } from '@sandbox/sandbox-local';
import { parentEnv } from '@sandbox/testing';
import { pino } from 'pino';
import { chooseLocalRuntime } from '../drivers/local-runtime-choice';
import { createLocalRuntime } from '../drivers/local-runtime';
import { pinnedPodman, pinnedRequestsPerSecond, planCpus } from './cpu-pinning.fixture';
import { cgroupCpuSeconds } from './server-cpu.fixture';
import { exampleAppSpec, exampleImage } from './local-host.fixture';

const PINNED = planCpus();
const logger = pino({ level: 'silent' });
const { values, positionals: extra } = parseArgs({
  allowPositionals: true,
  options: {
    'duration-ms': { type: 'string', default: '5000' },
    hold: { type: 'boolean', default: false },
    'app-env': { type: 'string', multiple: true, default: [] },
  },
});
const durationMs = Number(values['duration-ms']);
const env = Object.fromEntries(values['app-env'].map((pair) => pair.split(/=(.*)/s, 2)));
const hold = (): Promise<unknown> =>
  values.hold ? new Promise((resolve) => process.stdin.once('data', resolve)) : Promise.resolve();
const chosen = await chooseLocalRuntime('auto', false, { logger });
const driver = createLocalRuntime(
  createLocalDriver({
    logger,
    prefix: 'gvp',
    subnet: '10.216.9.0/24',
    run: pinnedPodman(PINNED.server),
    runscPath: chosen.runscPath,
    runtimeFlags: [...chosen.runtimeFlags, ...extra],
  }),
);
const spec = AppSpecSchema.parse(
  exampleAppSpec(
    await exampleImage(),
    { kind: 'reusable', capacity: 1, minReplicas: 1, maxReplicas: 1 },
    { resources: { cpu: '2', memory: '512Mi' }, env },
  ),
);
const request = { instanceId: 'gvprofile1', app: 'bench', templateHash: 'bench', spec };
try {
  const { url } = await driver.start(request);
  const ready = await driver.waitForReady({ instanceId: request.instanceId, ...(url ? { url } : {}) }, spec, {
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  const { stdout } = await runCommand('podman', [
    'ps',
    '-q',
    '--filter',
    'label=sandbox.instance=gvprofile1',
  ]);
  const id = stdout.trim();
  const pid = Number(
    (await runCommand('podman', ['inspect', '--format', '{{.State.Pid}}', id])).stdout.trim(),
  );
  process.stdout.write(`container ${id} pid ${pid} url ${ready.url}\n`);
  await hold();
  const target = new URL(ready.url);
  const before = cgroupCpuSeconds(pid);
  const result = await pinnedRequestsPerSecond(
    { host: target.hostname, port: Number(target.port), path: '/echo' },
    { connections: 32, warmupMs: 1_000, durationMs, env: parentEnv(), cpu: PINNED.load },
    () => cgroupCpuSeconds(pid),
  );
  const total = cgroupCpuSeconds(pid) - before;
  process.stdout.write(
    `rps ${result.rps.toFixed(0)} per_cpu_s ${result.perCpuSecond.toFixed(0)} requests ${Math.round((result.rps * durationMs) / 1000)} cpu_s_incl_warmup ${total.toFixed(2)}\n`,
  );
  await hold();
} finally {
  await driver.stop({ instanceId: request.instanceId });
}
