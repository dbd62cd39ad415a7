// Benchmark of redemption-handoff against real processes (Redis with AOF fsync always, the handoff,
// redeemer-sim): durable intake throughput, intake acknowledgement latency at 50 tickets/s, and
// delivery throughput to the simulator. Run: node --import tsx tools/redeemer-sim/src/system/handoff.bench.ts
import { readFileSync } from 'node:fs';
import type { WinningTicket } from '@sandbox/protocol';
import { percentile, printFigure } from '@sandbox/testing';
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

type CpuUser = 'handoff' | 'redeemer' | 'redis';

/** CPU seconds used so far by the handoff, the redeemer simulator and Redis. */
async function cpuSnapshot(stack: HandoffStack, redis: Redis): Promise<Record<CpuUser, number>> {
  return {
    handoff: processCpuSeconds(stack.handoff().handle.pid),
    redeemer: processCpuSeconds(stack.redeemer().handle.pid),
    redis: await redisCpuSeconds(redis),
  };
}

/**
 * CPU each process spends per ticket between two snapshots: on a shared machine the rates depend on
 * what else runs, the CPU per ticket much less (1e6 / µs per ticket = tickets/s one core can take).
 */
function printCpuPerTicket(
  phase: string,
  before: Record<CpuUser, number>,
  after: Record<CpuUser, number>,
  tickets: number,
): void {
  for (const user of ['handoff', 'redeemer', 'redis'] as const) {
    const perTicket = ((after[user] - before[user]) * 1e6) / tickets;
    printFigure(`handoff_${phase}_${user}_cpu_per_ticket_us`, perTicket, tickets);
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
    const cpuBefore = await cpuSnapshot(stack, redis);
    const started = performance.now();
    let left = await undelivered(redis);
    while (left > 0 && performance.now() - started < DELIVERY_DEADLINE_MS) {
      await pause(50);
      left = await undelivered(redis);
    }
    const delivered = backlog - left;
    printCpuPerTicket('delivery', cpuBefore, await cpuSnapshot(stack, redis), delivered);
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

  const redis = new Redis(stack.redis.url);
  const cpuBefore = await cpuSnapshot(stack, redis);
  const throughput = await intakeThroughput(stack, bulk);
  const cpuAfter = await cpuSnapshot(stack, redis);
  await redis.quit();
  printFigure('handoff_intake_tickets_per_s', throughput, bulk.length);
  printCpuPerTicket('intake', cpuBefore, cpuAfter, bulk.length);
  const latencies = await pacedLatencies(stack, paced);
  printFigure('handoff_ack_p50_ms', percentile(latencies, 50), latencies.length);
  printFigure('handoff_ack_p99_ms', percentile(latencies, 99), latencies.length);
  const delivery = await deliveryRate(stack);
  printFigure('handoff_delivery_tickets_per_s', delivery.perSecond, delivery.delivered);
} finally {
  await stack.stop();
}
