// Spec applied → instance ready → `instance-ready` queued, with the real local driver under gVisor
// (root). Each sample is one `PUT /v1/apps/bench` raising minReplicas by one, timed from the request
// to the BullMQ timestamp of the new instance's `instance-ready` job. Run:
//   node --import tsx apps/instance-manager/src/spec-to-ready.bench.ts
import { percentile, printFigure, startRedis, uniquePrefix } from '@sandbox/testing';
import { createLocalRuntime } from './drivers/local-runtime';
import { exampleAppSpec, exampleImage, testLocalDriver } from './test-support/local-host.fixture';
import { adapterSide, startManager, testSettings } from './test-support/manager-harness.fixture';

const SAMPLES = 20;
const redis = await startRedis();
const driver = await testLocalDriver('imb', '10.216.3.0/24', [redis.port]);
const settings = testSettings(uniquePrefix('im'), uniquePrefix('q'), { resyncIntervalMs: 5_000 });
const adapter = await adapterSide(redis.url, settings.queuePrefix);
const harness = await startManager(redis.url, createLocalRuntime(driver), settings);
const api = harness.api;

async function readyEvents(): Promise<{ id: string; queuedAt: number }[]> {
  const jobs = await adapter.instanceEventJobs();
  return jobs
    .filter((job) => job.name === 'instance-ready')
    .map((job) => ({ id: job.id, queuedAt: job.timestamp }));
}

try {
  const image = await exampleImage();
  const spec = (minReplicas: number) =>
    exampleAppSpec(image, { kind: 'reusable', capacity: 1, minReplicas, maxReplicas: SAMPLES });
  const latencies: number[] = [];
  for (let sample = 1; sample <= SAMPLES; sample += 1) {
    const before = new Set((await readyEvents()).map((event) => event.id));
    const applied = Date.now();
    await api
      .put('/v1/apps/bench')
      .send(spec(sample))
      .expect(sample === 1 ? 201 : 200);
    for (;;) {
      const fresh = (await readyEvents()).find((event) => !before.has(event.id));
      if (fresh) {
        latencies.push(fresh.queuedAt - applied);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  printFigure('spec_to_instance_ready_p50_ms', percentile(latencies, 50), latencies.length);
  printFigure('spec_to_instance_ready_p95_ms', percentile(latencies, 95), latencies.length);
} finally {
  await harness.stop();
  for (const found of await driver.list()) await driver.stop(found.instanceId);
  await adapter.close();
  await redis.stop();
}
