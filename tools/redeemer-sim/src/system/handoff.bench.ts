// Benchmark of redemption-handoff against real processes (Redis with AOF fsync always, the handoff,
// redeemer-sim): durable intake throughput, intake acknowledgement latency at 50 tickets/s, and
// delivery throughput to the simulator. Run: node --import tsx tools/redeemer-sim/src/system/handoff.bench.ts
import { readFileSync } from 'node:fs';
import type { WinningTicket } from '@sandbox/protocol';
import { Redis } from 'ioredis';
import { startHandoffStack, type HandoffStack } from './handoff-stack';
import { ticketFactory } from './ticket-factory';

const INTAKE_TICKETS = 6_000;
const INTAKE_CONCURRENCY = 4;
const PACED_SECONDS = 8;
const PACED_RATE = 50;
const DELIVERY_DEADLINE_MS = 30_000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function postBatch(stack: HandoffStack, tickets: readonly WinningTicket[]): Promise<void> {
  const response = await fetch(`${stack.handoffUrl}/v1/winning-tickets`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${stack.intakeToken}` },
    body: JSON.stringify({ tickets }),
  });
  const body = (await response.json()) as { results?: { status: string }[] };
  if (response.status !== 200 || body.results?.some((result) => result.status !== 'accepted')) {
    throw new Error(`intake answered ${response.status}`);
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds Redis has used so far (`INFO cpu`). */
async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const read = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? Number.NaN);
  return read('used_cpu_sys') + read('used_cpu_user');
}

/**
 * CPU the handoff and Redis spend per ticket while `work` runs: on a shared machine the rate depends
 * on what else runs, the CPU per ticket much less (1e6 / µs per ticket = tickets/s one core can take).
 */
async function cpuPerTicket(
  stack: HandoffStack,
  tickets: number,
  work: () => Promise<void>,
): Promise<{ handoffUs: number; redisUs: number }> {
  const redis = new Redis(stack.redis.url);
  try {
    const pid = stack.handoff().handle.pid;
    const [handoffBefore, redisBefore] = [processCpuSeconds(pid), await redisCpuSeconds(redis)];
    await work();
    const [handoffAfter, redisAfter] = [processCpuSeconds(pid), await redisCpuSeconds(redis)];
    const perTicket = (seconds: number) => (seconds * 1e6) / tickets;
    return {
      handoffUs: perTicket(handoffAfter - handoffBefore),
      redisUs: perTicket(redisAfter - redisBefore),
    };
  } finally {
    await redis.quit();
  }
}

/** Batches of 100 from a few payers, `INTAKE_CONCURRENCY` requests in flight. */
async function intakeThroughput(stack: HandoffStack, tickets: WinningTicket[]): Promise<number> {
  const batches: WinningTicket[][] = [];
  for (let i = 0; i < tickets.length; i += 100) batches.push(tickets.slice(i, i + 100));
  const started = performance.now();
  await Promise.all(
    Array.from({ length: INTAKE_CONCURRENCY }, async () => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) await postBatch(stack, batch);
    }),
  );
  return tickets.length / ((performance.now() - started) / 1_000);
}

/** One-ticket batches at 50 tickets/s, as Node's outbox sends winners as they come. */
async function pacedLatencies(stack: HandoffStack, tickets: WinningTicket[]): Promise<number[]> {
  const latencies: number[] = [];
  const interval = 1_000 / PACED_RATE;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  tickets.forEach((ticket, i) => {
    inFlight.push(
      (async () => {
        await pause(Math.max(0, started + i * interval - performance.now()));
        const sent = performance.now();
        await postBatch(stack, [ticket]);
        latencies.push(performance.now() - sent);
      })(),
    );
  });
  await Promise.all(inFlight);
  return latencies.sort((a, b) => a - b);
}

/** Tickets still owed a delivery, read from Redis (the handoff's default key prefix). */
async function undelivered(redis: Redis): Promise<number> {
  const [received, delivering] = await Promise.all([
    redis.zcard('sandbox:rh:state:received'),
    redis.zcard('sandbox:rh:state:delivering'),
  ]);
  return received + delivering;
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

const figure = (name: string, value: number, unit: string, samples: number, digits = 0): void => {
  process.stdout.write(`${name}: ${value.toFixed(digits)} ${unit} (n=${samples})\n`);
};

/**
 * Restarts the handoff without the hold-back and times, from the moment it is ready, how long it takes
 * to hand the backlog to the simulator (polled every 50 ms; startup is not counted).
 */
async function deliveryRate(stack: HandoffStack): Promise<{ perSecond: number; delivered: number }> {
  await stack.handoff().stop();
  const redis = new Redis(stack.redis.url);
  try {
    const backlog = await undelivered(redis);
    await stack.startHandoff({ DELIVERY_RATE_MAX: '100000', DELIVERY_RATE_WINDOW_MS: '1000' });
    const started = performance.now();
    let left = await undelivered(redis);
    while (left > 0 && performance.now() - started < DELIVERY_DEADLINE_MS) {
      await pause(50);
      left = await undelivered(redis);
    }
    const delivered = backlog - left;
    return { perSecond: delivered / ((performance.now() - started) / 1_000), delivered };
  } finally {
    await redis.quit();
  }
}

// Deliveries are held back (one per minute) while intake is measured, so the figures are intake's own.
const stack = await startHandoffStack({
  handoffEnv: { LOG_LEVEL: 'warn', DELIVERY_RATE_MAX: '1', DELIVERY_RATE_WINDOW_MS: '60000' },
  redeemerEnv: { LOG_LEVEL: 'warn' },
});
try {
  const make = ticketFactory({ seed: 4_242 });
  const bulk = Array.from({ length: INTAKE_TICKETS }, () => make());
  const paced = Array.from({ length: PACED_SECONDS * PACED_RATE }, () => make());
  // Warm-up: first-seen payers pay a full key recovery; the JIT warms up.
  await postBatch(
    stack,
    Array.from({ length: 100 }, () => make()),
  );

  let throughput = Number.NaN;
  const cpu = await cpuPerTicket(stack, bulk.length, async () => {
    throughput = await intakeThroughput(stack, bulk);
  });
  figure('handoff_intake_tickets_per_s', throughput, 'tickets/s', bulk.length);
  figure('handoff_intake_cpu_us_per_ticket', cpu.handoffUs, 'µs', bulk.length);
  figure('handoff_intake_redis_cpu_us_per_ticket', cpu.redisUs, 'µs', bulk.length);
  const latencies = await pacedLatencies(stack, paced);
  figure('handoff_ack_p50_ms', percentile(latencies, 50), 'ms', latencies.length, 1);
  figure('handoff_ack_p99_ms', percentile(latencies, 99), 'ms', latencies.length, 1);
  const delivery = await deliveryRate(stack);
  figure('handoff_delivery_tickets_per_s', delivery.perSecond, 'tickets/s', delivery.delivered);
} finally {
  await stack.stop();
}
