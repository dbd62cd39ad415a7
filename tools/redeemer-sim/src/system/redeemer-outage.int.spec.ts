import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@sandbox/testing';
import { startHandoffStack, type HandoffStack } from './handoff-stack';
import { readTicketStates } from './handoff-views';
import { createIntakeClient } from './intake-client';
import { compareLedgers, readSimLedger } from './ledger-check';
import { ticketFactory } from './ticket-factory';

/** How long the redeemer stays unreachable; a few minutes in CI, longer by hand. */
const OUTAGE_MS = Number(process.env.REDEEMER_OUTAGE_MS ?? 120_000);

let stack: HandoffStack;

beforeAll(async () => {
  stack = await startHandoffStack({
    handoffEnv: { DELIVERY_BACKOFF_CAP_MS: '5000', DELIVERY_RATE_MAX: '100' },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

const metric = async (name: string): Promise<number> => {
  const text = await (await fetch(`${stack.handoffUrl}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name}{`) || row.startsWith(`${name} `));
  return Number(line?.split(' ').at(-1) ?? Number.NaN);
};

const setFaults = (faults: Record<string, unknown>): Promise<Response> =>
  fetch(`${stack.redeemerUrl}/sim/faults`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(faults),
  });

describe('a redeemer outage of minutes', () => {
  it(
    'keeps every winner through refused connections, 503s and hangs, then delivers each once',
    async () => {
      const make = ticketFactory({ seed: 77 });
      const client = createIntakeClient(stack.handoffUrl, stack.intakeToken);
      const produced = new Set<string>();
      const produce = (count: number): void => {
        const tickets = Array.from({ length: count }, () => make());
        for (const ticket of tickets) produced.add(ticket.ticketHash);
        client.submit(tickets);
      };
      try {
        produce(100);
        await waitFor(() => client.pendingCount() === 0, {
          description: 'the first winners to be taken',
          timeoutMs: 30_000,
        });
        const third = OUTAGE_MS / 3;
        // 1/3: the redeemer process is gone (connection refused).
        await stack.redeemer().kill9();
        produce(200);
        await new Promise((resolve) => setTimeout(resolve, third));
        expect(await metric('handoff_oldest_undelivered_age_seconds')).toBeGreaterThan(0);
        expect(await metric('handoff_validity_window_used_max_ratio')).toBeGreaterThan(0);
        // 2/3: it answers 503; 3/3: it hangs until the delivery times out.
        await stack.startRedeemer();
        await setFaults({ outage: 'unavailable' });
        produce(200);
        await new Promise((resolve) => setTimeout(resolve, third));
        await setFaults({ outage: 'hang' });
        await new Promise((resolve) => setTimeout(resolve, third));
        expect(client.pendingCount()).toBe(0);
        const during = await (
          await fetch(`${stack.handoffUrl}/v1/winning-tickets?state=delivering&limit=500`, {
            headers: stack.readHeaders,
          })
        ).json();
        expect((during as { tickets: { lastError?: string }[] }).tickets.length).toBeGreaterThan(0);
        await setFaults({ outage: 'none' });

        await waitFor(
          async () => (await readSimLedger(stack.redeemerUrl)).tickets.filter((t) => t.outcome).length >= 500,
          {
            description: 'every winner to be delivered and decided after the outage',
            timeoutMs: 180_000,
            intervalMs: 1_000,
          },
        );
        const comparison = compareLedgers(produced, await readSimLedger(stack.redeemerUrl));
        expect(comparison).toMatchObject({
          produced: 500,
          lost: [],
          unknown: [],
          submittedTwice: [],
          undecided: [],
        });
        expect(await readTicketStates(stack)).toEqual({ redeemed: 500 });
        expect(await metric('handoff_oldest_undelivered_age_seconds')).toBe(0);
      } finally {
        await client.stop();
      }
    },
    OUTAGE_MS + 420_000,
  );
});
