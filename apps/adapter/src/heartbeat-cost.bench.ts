// Benchmark: what one heartbeat costs the adapter, independent of the machine's load: bytes allocated
// on V8's heap and CPU microseconds per heartbeat, with 256 runners on Node's 5 s interval (O2R
// long-polls and their keepalive segments included, as in production). The adapter runs in this
// process, straight against the Node simulator (a child process) so no proxy's work is counted.
// `--profile FILE` writes a CPU profile of the window; `--sites` also samples where the bytes are allocated (garbage included) and prints the top sites.
// Run: node --import tsx apps/adapter/src/heartbeat-cost.bench.ts [--seconds=30] [--sites] [--profile FILE]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { NodeLimits } from '@sandbox/protocol';
import { printFigure, startRedis, uniquePrefix, waitFor } from '@sandbox/testing';
import { openQueues, readyEvent, startAdapter, type AdapterHarness } from './__fixtures__/adapter-harness';
import { startNodeSim } from './__fixtures__/node-sim-process';
import { canarySecret } from './__fixtures__/world';
import { allocatedBytes, topAllocationSites, type SamplingProfile } from '@sandbox/testing';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    runners: { type: 'string', default: String(NodeLimits.maxRunners) },
    sites: { type: 'boolean', default: false },
    // A CPU profile of the measured window (a .cpuprofile file for Chrome's DevTools).
    profile: { type: 'string' },
  },
});
const WINDOW_MS = Number(values.seconds) * 1_000;
const RUNNERS = Number(values.runners);
const INTERVAL_MS = 5_000;

/** Successful calls to Node of one kind so far, from the adapter's own histogram. */
async function calls(adapter: AdapterHarness, kind: string): Promise<number> {
  const metric = adapter.runtime.metrics.registry.getSingleMetric('adapter_node_request_duration_seconds');
  const { values: series } = (await metric?.get()) ?? { values: [] };
  const count = series.find(
    (value) =>
      (value as { metricName?: string }).metricName?.endsWith('_count') && value.labels.kind === kind,
  );
  return count?.value ?? 0;
}

const redis = await startRedis();
const dir = await mkdtemp(join(tmpdir(), 'heartbeat-cost-'));
const secretFile = join(dir, 'bootstrap-secret');
await writeFile(secretFile, canarySecret(), { mode: 0o600 });
const sim = await startNodeSim({ secretFile, heartbeatInterval: '5s', heartbeatTtl: '30s' });
const prefix = uniquePrefix('heartbeat-cost');
const queues = openQueues(redis.url, prefix);
const adapter = await startAdapter({
  redisUrl: redis.url,
  nodeUrl: sim.publicUrl,
  secretFile,
  prefix,
  env: { LOG_LEVEL: 'warn', NODE_ENV: 'production' },
});
const session = new Session();
try {
  const ids = Array.from({ length: RUNNERS }, (_, index) => `cost-${index}`);
  await Promise.all(ids.map((id) => queues.instanceEvents.add('instance-ready', readyEvent(id))));
  await waitFor(async () => (await calls(adapter, 'bootstrap')) >= RUNNERS, {
    description: 'all registered',
    timeoutMs: 60_000,
  });
  // Two intervals: every runner has beaten and the code on the path is optimised.
  await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_MS));
  if (values.sites) {
    session.connect();
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  if (values.profile !== undefined) {
    if (!values.sites) session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const beatsBefore = await calls(adapter, 'heartbeat');
  const gc = new GCProfiler();
  const usedAtStart = getHeapStatistics().used_heap_size;
  gc.start();
  const cpu = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  const used = process.cpuUsage(cpu);
  const gcs = gc.stop();
  const allocated = allocatedBytes(gcs, usedAtStart, getHeapStatistics().used_heap_size);
  const beats = (await calls(adapter, 'heartbeat')) - beatsBefore;
  printFigure('adapter_allocated_per_heartbeat_kb', allocated / beats / 1_024, beats);
  printFigure('adapter_cpu_per_heartbeat_us', (used.user + used.system) / beats, beats);
  printFigure('adapter_allocated_mb_per_s', allocated / 1_048_576 / (WINDOW_MS / 1_000), 1);
  if (values.profile !== undefined) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(values.profile, JSON.stringify(profile));
  }
  if (values.sites) {
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: SamplingProfile };
    process.stderr.write(`${topAllocationSites(profile, 40)}\n`);
  }
  process.stderr.write(`${RUNNERS} runners, interval ${INTERVAL_MS} ms, ${beats} heartbeats measured\n`);
} finally {
  session.disconnect();
  await adapter.stop();
  await queues.close();
  await sim.stop();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
}
