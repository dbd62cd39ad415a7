// Benchmark: the adapter's memory before it does any work — started as production runs it (one
// bundled file under plain node, V8's defaults, the image's environment, the pod's memory limit
// unless `--memory-limit=none`), connected to Redis, ready, zero runners. Figures: RSS
// and its split into anonymous memory (heaps, code space, native) and file pages (mostly the node
// binary's code that loading touched), each the median of one-second samples.
// Run: node --import tsx apps/adapter/src/adapter-idle.bench.ts [--runs=3] [--seconds=5] [--tsx]
//      [--memory-limit=pod|none]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
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
import { bundleAdapter, spawnAdapter } from './__fixtures__/adapter-process';
import { benchMemoryCgroup } from './__fixtures__/pod-memory';
import { processMemory, type ProcessMemory } from './__fixtures__/process-memory';
import { canarySecret } from './__fixtures__/world';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    tsx: { type: 'boolean', default: false },
    'node-options': { type: 'string', default: '' },
    'memory-limit': { type: 'string', default: 'pod' },
  },
});
const RUNS = Number(values.runs);
const SECONDS = Number(values.seconds);

const redis = await startRedis();
const dir = await mkdtemp(join(tmpdir(), 'adapter-idle-bench-'));
const access = createTestAccess();
const secretFile = join(dir, 'bootstrap-secret');
await writeFile(secretFile, canarySecret());
const bundle = values.tsx ? undefined : await bundleAdapter(join(dir, 'adapter.mjs'));

/** One adapter started to readiness and sampled once a second while it idles. */
async function idleRun(): Promise<ProcessMemory[]> {
  const port = await findFreePort();
  const prefix = uniquePrefix('adapter-idle');
  const cgroup = await benchMemoryCgroup(values['memory-limit']);
  const adapter = spawnAdapter(
    {
      ...NODE_IMAGE_ENV,
      NODE_OPTIONS: values['node-options'],
      PORT: String(port),
      REDIS_URL: redis.url,
      // Nothing listens there: an adapter with no runners never calls Node.
      NODE_URL: 'http://127.0.0.1:9',
      BOOTSTRAP_SECRET_FILE: secretFile,
      QUEUE_PREFIX: prefix,
      STATE_PREFIX: `${prefix}-adapter`,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      ...access.env,
    },
    { ...(bundle === undefined ? {} : { bundle }), ...(cgroup === undefined ? {} : { cgroup }) },
  );
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, {
      description: 'the adapter ready',
      timeoutMs: 30_000,
    });
    const samples: ProcessMemory[] = [];
    for (let second = 0; second < SECONDS; second += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      samples.push(await processMemory(adapter.pid ?? 0));
    }
    return samples;
  } finally {
    await adapter.kill('SIGTERM');
    await cgroup?.remove();
  }
}

try {
  const samples: ProcessMemory[] = [];
  for (let run = 0; run < RUNS; run += 1) samples.push(...(await idleRun()));
  const median = (pick: (sample: ProcessMemory) => number) => percentile(samples.map(pick), 50);
  printFigure(
    'adapter_idle_rss_mb',
    median((sample) => sample.rssMb),
    samples.length,
  );
  printFigure(
    'adapter_idle_rss_anon_mb',
    median((sample) => sample.anonMb),
    samples.length,
  );
  printFigure(
    'adapter_idle_rss_file_mb',
    median((sample) => sample.fileMb),
    samples.length,
  );
  process.stderr.write(
    `${bundle === undefined ? 'tsx dev entry' : 'bundled main.ts'}, NODE_OPTIONS="${values['node-options']}", ` +
      `memory limit ${values['memory-limit'] === 'none' ? 'none (the machine)' : "the pod's"}, ` +
      `${RUNS} adapters × ${SECONDS} one-second samples after /readyz\n`,
  );
} finally {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
  access.cleanup();
}
