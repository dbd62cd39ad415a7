// Start → ready latency of the example app under gVisor, and its HTTP throughput under gVisor against
// the same bundle run natively. Needs root. Run:
//   node --import tsx libs/sandbox-local/src/sandbox.bench.ts [runsc-path [runsc-flag...]]
// e.g. `... sandbox.bench.ts ~/.cache/sandbox-runtime/runsc/<version>/runsc platform=systrap`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from './clock';
import { createLocalDriver } from './local-driver';
import type { StartedInstance } from './local-driver';
import { waitForReady } from './readiness';
import { bundleNodeApp } from './images/node-app-image';
import { EXAMPLE_ENTRY, exampleImage, exampleSpec, testLogger } from './test-support/example-app.fixture';
import { measureRequestsPerSecond } from '@sandbox/testing';

const INSTANCES = 10;
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
const LOAD = { clock: systemClock, connections: 32, warmupMs: 1_000, durationMs: 4_000 };
const NATIVE_PORT = 18_080;

const [runscPath = 'runsc', ...runtimeFlags] = process.argv.slice(2);
const driver = createLocalDriver({
  logger: testLogger,
  prefix: 'sbn',
  subnet: '10.214.4.0/24',
  runscPath,
  runtimeFlags,
});

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function print(name: string, value: number, unit: string): void {
  process.stdout.write(`${name}: ${value.toFixed(unit === 'ratio' ? 3 : 0)} ${unit}\n`);
}

async function startLatencies(image: string): Promise<{ call: number[]; ready: number[] }> {
  const call: number[] = [];
  const ready: number[] = [];
  for (let round = 0; round < INSTANCES; round += 1) {
    const t0 = systemClock.now();
    const instance = await driver.start(exampleSpec(image));
    call.push(systemClock.now() - t0);
    await driver.waitForReady(instance, HEALTH, { intervalMs: 100 });
    ready.push(systemClock.now() - t0);
    await driver.stop(instance.instanceId);
  }
  return { call, ready };
}

async function startNative(bundleFile: string): Promise<{ child: ChildProcessHandle; readyMs: number }> {
  const t0 = systemClock.now();
  const child = startChildProcess(process.execPath, [bundleFile], {
    env: { PORT: String(NATIVE_PORT), HOST: '127.0.0.1' },
    keepChars: 0,
  });
  await waitForReady({ address: '127.0.0.1', port: NATIVE_PORT }, HEALTH, {
    clock: systemClock,
    intervalMs: 100,
  });
  return { child, readyMs: systemClock.now() - t0 };
}

async function main(): Promise<void> {
  const image = await exampleImage();
  const latencies = await startLatencies(image);
  print('gvisor_start_call_p50', percentile(latencies.call, 50), 'ms');
  print('gvisor_start_to_ready_p50', percentile(latencies.ready, 50), 'ms');
  print('gvisor_start_to_ready_p95', percentile(latencies.ready, 95), 'ms');

  // Native first, so the sandboxes' teardown is not competing for the two cores while it is measured.
  const workDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-'));
  const bundleFile = join(workDir, 'main.mjs');
  await writeFile(bundleFile, await bundleNodeApp(EXAMPLE_ENTRY));
  const native = await startNative(bundleFile);
  let nativeRps: number;
  try {
    print('native_start_to_ready', native.readyMs, 'ms');
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
  print('gvisor_requests_per_second', gvisorRps, 'req/s');
  print('native_requests_per_second', nativeRps, 'req/s');
  print('gvisor_to_native_rps_ratio', gvisorRps / nativeRps, 'ratio');
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const found of await driver.list()) await driver.stop(found.instanceId).catch(() => undefined);
  });
