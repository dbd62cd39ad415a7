// HTTP requests per second of the example app (`GET /echo`, 32 keep-alive connections) in a gVisor
// instance started the way the instance-manager starts it, against the same bundle run natively, for
// the runtime `auto` chooses (systrap when built) and for Debian's runsc (ptrace). Root. Run:
//   node --import tsx apps/instance-manager/src/example-throughput.bench.ts
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildProcess } from '@sandbox/process';
import { AppSpecSchema } from '@sandbox/protocol';
import {
  EXAMPLE_APP,
  bundleNodeApp,
  createLocalDriver,
  systemClock,
  waitForReady,
} from '@sandbox/sandbox-local';
import { findFreePort, measureRequestsPerSecond } from '@sandbox/testing';
import { pino } from 'pino';
import { DEBIAN_RUNSC, chooseLocalRuntime } from './drivers/local-runtime-choice';
import { createLocalRuntime } from './drivers/local-runtime';
import { printFigure } from './test-support/bench-figures.fixture';
import { exampleAppSpec, exampleImage } from './test-support/local-host.fixture';

const LOAD = { clock: systemClock, connections: 32, warmupMs: 1_000, durationMs: 3_000 };
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
const ENTRY = EXAMPLE_APP.entryFile;
const logger = pino({ level: 'silent' });

async function nativeRps(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'im-bench-'));
  const file = join(dir, 'main.mjs');
  await writeFile(file, await bundleNodeApp(ENTRY));
  const port = await findFreePort();
  const child = startChildProcess(process.execPath, [file], {
    env: { PORT: String(port), HOST: '127.0.0.1' },
    keepChars: 0,
  });
  try {
    await waitForReady({ address: '127.0.0.1', port }, HEALTH, { clock: systemClock });
    return await measureRequestsPerSecond('127.0.0.1', port, '/echo', LOAD);
  } finally {
    await child.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function gvisorRps(
  runtime: { runscPath: string; runtimeFlags: string[] },
  image: string,
): Promise<number> {
  const driver = createLocalRuntime(
    createLocalDriver({ logger, prefix: 'imt', subnet: '10.216.5.0/24', ...runtime }),
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
    return await measureRequestsPerSecond(target.hostname, Number(target.port), '/echo', LOAD);
  } finally {
    await driver.stop({ instanceId: request.instanceId });
  }
}

const image = await exampleImage();
const native = await nativeRps();
const chosen = await chooseLocalRuntime('auto', false, { logger });
const chosenRps = await gvisorRps(chosen, image);
const platform = chosen.runtimeFlags.includes('platform=systrap') ? 'systrap' : 'ptrace';
printFigure('native_requests_per_second', native, 'req/s');
printFigure(`gvisor_${platform}_requests_per_second`, chosenRps, 'req/s');
printFigure(`gvisor_${platform}_to_native_rps_ratio`, chosenRps / native, 'ratio');
if (chosen !== DEBIAN_RUNSC) {
  const debianRps = await gvisorRps(DEBIAN_RUNSC, image);
  printFigure('gvisor_ptrace_debian_requests_per_second', debianRps, 'req/s');
  printFigure('gvisor_ptrace_debian_to_native_rps_ratio', debianRps / native, 'ratio');
}
