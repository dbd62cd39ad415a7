// Benchmark of redemption-handoff against real processes (Redis with AOF fsync always, the handoff,
// redeemer-sim): durable intake throughput, intake acknowledgement latency at 50 tickets/s, and
// delivery throughput to the simulator. Run: node --import tsx tools/redeemer-sim/src/system/handoff.bench.ts
import type { WinningTicket } from '@sandbox/protocol';
import { percentile, printFigure } from '@sandbox/testing';
import { Redis } from 'ioredis';
import { startHandoffStack, type HandoffStack } from './handoff-stack';
import { ticketFactory } from './ticket-factory';

const INTAKE_TICKETS = 3_000;
const INTAKE_CONCURRENCY = 4;
const PACED_SECONDS = 6;
const DELIVERY_WINDOW_MS = 8_000;
const PACED_RATE = 50;

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

  const throughput = await intakeThroughput(stack, bulk);
  printFigure('handoff_intake_durable_tickets_per_s', throughput, bulk.length);
  const latencies = await pacedLatencies(stack, paced);
  printFigure('handoff_intake_ack_at_50_per_s_p50_ms', percentile(latencies, 50), latencies.length);
  printFigure('handoff_intake_ack_at_50_per_s_p99_ms', percentile(latencies, 99), latencies.length);

  // Delivery: restart the handoff without the hold-back; count what it delivers in a fixed window.
  await stack.handoff().stop();
  const redis = new Redis(stack.redis.url);
  const backlog = await undelivered(redis);
  const started = performance.now();
  await stack.startHandoff({ DELIVERY_RATE_MAX: '5000', DELIVERY_RATE_WINDOW_MS: '1000' });
  await pause(DELIVERY_WINDOW_MS);
  const delivered = backlog - (await undelivered(redis));
  await redis.quit();
  const seconds = (performance.now() - started) / 1_000;
  printFigure('handoff_delivery_to_sim_tickets_per_s', delivered / seconds, delivered);
} finally {
  await stack.stop();
}
