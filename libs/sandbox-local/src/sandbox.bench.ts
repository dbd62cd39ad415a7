// Start → ready latency of the example app under gVisor, and its HTTP throughput under gVisor against
// the same bundle run natively. Needs root. Run:
//   node --import tsx libs/sandbox-local/src/sandbox.bench.ts [runsc-path [runsc-flag...]]
// e.g. `... sandbox.bench.ts ~/.cache/sandbox-runtime/runsc/<version>/runsc platform=systrap`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import { percentile, printFigure } from '@sandbox/testing';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monotonicClock } from '@sandbox/service-kit';
import { createLocalDriver } from './local-driver';
import type { StartedInstance } from './local-driver';
import { waitForReady } from './readiness';
import { bundleNodeApp } from './images/node-app-image';
import { EXAMPLE_ENTRY, exampleImage, exampleSpec, testLogger } from './test-support/example-app.fixture';
import { measureRequestsPerSecond } from '@sandbox/testing';

const INSTANCES = 10;
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
const LOAD = { clock: monotonicClock, connections: 32, warmupMs: 1_000, durationMs: 4_000 };
const NATIVE_PORT = 18_080;

const [runscPath = 'runsc', ...runtimeFlags] = process.argv.slice(2);
const driver = createLocalDriver({
  logger: testLogger,
  prefix: 'sbn',
  subnet: '10.214.4.0/24',
  runscPath,
  runtimeFlags,
});

async function startLatencies(image: string): Promise<{ call: number[]; ready: number[] }> {
  const call: number[] = [];
  const ready: number[] = [];
  for (let round = 0; round < INSTANCES; round += 1) {
    const t0 = monotonicClock.now();
    const instance = await driver.start(exampleSpec(image));
    call.push(monotonicClock.now() - t0);
    await driver.waitForReady(instance, HEALTH, { intervalMs: 100 });
    ready.push(monotonicClock.now() - t0);
    await driver.stop(instance.instanceId);
  }
  return { call, ready };
}

async function startNative(bundleFile: string): Promise<{ child: ChildProcessHandle; readyMs: number }> {
  const t0 = monotonicClock.now();
  const child = startChildProcess(process.execPath, [bundleFile], {
    env: { PORT: String(NATIVE_PORT), HOST: '127.0.0.1' },
    keepChars: 0,
  });
  await waitForReady({ address: '127.0.0.1', port: NATIVE_PORT }, HEALTH, {
    clock: monotonicClock,
    intervalMs: 100,
  });
  return { child, readyMs: monotonicClock.now() - t0 };
}

async function main(): Promise<void> {
  const image = await exampleImage();
  const latencies = await startLatencies(image);
  printFigure('gvisor_start_call_p50_ms', percentile(latencies.call, 50), latencies.call.length);
  printFigure('gvisor_start_to_ready_p50_ms', percentile(latencies.ready, 50), latencies.ready.length);
  printFigure('gvisor_start_to_ready_p95_ms', percentile(latencies.ready, 95), latencies.ready.length);

  // Native first, so the sandboxes' teardown is not competing for the two cores while it is measured.
  const workDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-'));
  const bundleFile = join(workDir, 'main.mjs');
  await writeFile(bundleFile, await bundleNodeApp(EXAMPLE_ENTRY));
  const native = await startNative(bundleFile);
  let nativeRps: number;
  try {
    printFigure('native_start_to_ready_ms', native.readyMs, 1);
    nativeRps = await measureRequestsPerSecond('127.0.0.1', NATIVE_PORT, '/echo', LOAD);
  } finally {
    await native.child.stop();
    await rm(workDir, { recursive: true, force: true });
  }

  const sandboxed: StartedInstance = await driver.start(
    exampleSpec(image, { resources: { cpus: 2, memoryMb: 512 } }),
  );
  await driver.waitForReady(sandboxed, HEALTH);
  const gvisorRps = await measureRequestsPerSecond(sandboxed.address, sandboxed.port, '/echo', LOAD);
  await driver.stop(sandboxed.instanceId);
  printFigure('gvisor_echo_req_per_s', gvisorRps, 1);
  printFigure('native_echo_req_per_s', nativeRps, 1);
  printFigure('gvisor_to_native_echo_rps_ratio', gvisorRps / nativeRps, 1);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const found of await driver.list()) await driver.stop(found.instanceId).catch(() => undefined);
  });
