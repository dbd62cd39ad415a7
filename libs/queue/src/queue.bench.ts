// Benchmark: typed producer → worker round-trip throughput, and durable-write latency, against a
// fresh redis-server (AOF on, appendfsync always). Run: node --import tsx libs/queue/src/queue.bench.ts
import { defineQueue } from '@sandbox/protocol';
import { percentile, printFigure, startRedis, uniquePrefix } from '@sandbox/testing';
import { pino } from 'pino';
import { z } from 'zod';
import { createRedisConnection } from './connection';
import { createDurableWriter } from './durable-write';
import { createProducer } from './producer';
import { createWorker } from './worker';

const ROUND_TRIP_JOBS = 20_000;
const ADD_BATCH = 100;
const WORKER_CONCURRENCY = 50;
const DURABLE_WRITES = 1_000;

const benchQueue = defineQueue('bench-echo', {
  'echo-payload': z.strictObject({ id: z.number().int(), body: z.string().max(256) }),
});

const logger = pino({ level: 'silent' });

async function roundTrip(url: string): Promise<number> {
  const producerConnection = createRedisConnection(url, 'producer');
  const workerConnection = createRedisConnection(url, 'worker');
  const prefix = uniquePrefix('bench');
  const producer = createProducer(benchQueue, { connection: producerConnection, prefix, logger });
  let completed = 0;
  let allDone: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  const worker = createWorker(
    benchQueue,
    { 'echo-payload': async (data) => data.id },
    { connection: workerConnection, prefix, logger, concurrency: WORKER_CONCURRENCY },
  );
  worker.worker.on('completed', () => {
    completed += 1;
    if (completed === ROUND_TRIP_JOBS) allDone();
  });
  await worker.worker.waitUntilReady();
  const started = performance.now();
  for (let first = 0; first < ROUND_TRIP_JOBS; first += ADD_BATCH) {
    const ids = Array.from({ length: Math.min(ADD_BATCH, ROUND_TRIP_JOBS - first) }, (_, i) => first + i);
    await Promise.all(ids.map((id) => producer.add('echo-payload', { id, body: 'x'.repeat(64) })));
  }
  await finished;
  const seconds = (performance.now() - started) / 1_000;
  await worker.close();
  await producer.queue.obliterate({ force: true });
  await producer.close();
  await Promise.all([producerConnection.quit(), workerConnection.quit()]);
  return ROUND_TRIP_JOBS / seconds;
}

async function durableLatencies(url: string): Promise<number[]> {
  const redis = createRedisConnection(url, 'worker');
  const writer = createDurableWriter(redis);
  await writer.check();
  const latencies: number[] = [];
  for (let index = 0; index < DURABLE_WRITES; index += 1) {
    const started = performance.now();
    await writer.write((r) => r.set(`bench:durable:${index}`, 'x'.repeat(128)));
    latencies.push(performance.now() - started);
  }
  await redis.quit();
  return latencies.sort((a, b) => a - b);
}

const redis = await startRedis();
try {
  const throughput = await roundTrip(redis.url);
  const latencies = await durableLatencies(redis.url);
  printFigure('queue_roundtrip_jobs_per_s', throughput, ROUND_TRIP_JOBS);
  printFigure('queue_durable_write_p50_ms', percentile(latencies, 50), latencies.length);
  printFigure('queue_durable_write_p99_ms', percentile(latencies, 99), latencies.length);
} finally {
  await redis.stop();
}
