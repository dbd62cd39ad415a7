import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TicketListResponseSchema, type WinningTicket } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';
import { startHandoffStack, type HandoffStack } from './handoff-stack';
import { currentRound, ticketFactory } from './ticket-factory';

const OTHER_RECIPIENT = `0x${'0c'.repeat(20)}`;
let stack: HandoffStack;

beforeAll(async () => {
  // The redeemer serves another orchestrator only when told (to get permanent refusals).
  stack = await startHandoffStack({
    handoffEnv: { LOG_LEVEL: 'trace' },
    redeemerEnv: { LOG_LEVEL: 'trace' },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

const intake = async (tickets: unknown[]) => {
  const response = await fetch(`${stack.handoffUrl}/v1/winning-tickets`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${stack.intakeToken}` },
    body: JSON.stringify({ tickets }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: { status: string; reason?: string }[] }).results;
};

const simPost = (path: string, body: unknown, method = 'POST') =>
  fetch(`${stack.redeemerUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

async function stateOf(ticket: WinningTicket): Promise<string | undefined> {
  for (const state of [
    'redeemed',
    'already_used',
    'expired',
    'rejected',
    'expired_undelivered',
    'accepted',
    'delivering',
    'received',
  ]) {
    const page = TicketListResponseSchema.parse(
      await (
        await fetch(`${stack.handoffUrl}/v1/winning-tickets?state=${state}&limit=500`, {
          headers: stack.readHeaders,
        })
      ).json(),
    );
    if (page.tickets.some((item) => item.ticketHash === ticket.ticketHash)) return state;
  }
  return undefined;
}

describe('bad tickets and every outcome', () => {
  it('rejects bad tickets at intake, records each redeemer outcome, and never shows a secret', async () => {
    const make = ticketFactory({ seed: 91 });
    const [good, alreadyUsed, willExpire, canary] = [make(), make(), make(), make()];
    const foreign = ticketFactory({ seed: 92, recipient: OTHER_RECIPIENT })();
    const stale = make({ creationRound: currentRound() - 2n });
    await simPost('/sim/used-tickets', { ticketHash: alreadyUsed.ticketHash });
    const results = await intake([
      good,
      { ...good, recipientRand: canary.recipientRand },
      good,
      { ...canary, sig: good.sig },
      stale,
      { ...good, faceValue: '1e18' },
      alreadyUsed,
      canary,
    ]);
    expect(results.map((result) => result.reason ?? result.status)).toEqual([
      'accepted',
      'recipient_rand_mismatch',
      'duplicate',
      'invalid_signature',
      'expired',
      'malformed',
      'accepted',
      'accepted',
    ]);
    await waitFor(
      async () =>
        (await stateOf(good)) === 'redeemed' &&
        (await stateOf(canary)) === 'redeemed' &&
        (await stateOf(alreadyUsed)) === 'already_used',
      {
        description: 'redeemed and already-used outcomes',
        timeoutMs: 30_000,
      },
    );

    // A ticket the redeemer refuses for good: it serves only our orchestrator now.
    await stack.redeemer().stop();
    await stack.startRedeemer({ SIM_RECIPIENT: good.recipient });
    await intake([foreign]);
    await waitFor(async () => (await stateOf(foreign)) === 'rejected', {
      description: 'a permanent refusal',
      timeoutMs: 30_000,
    });

    // A ticket that left its window on the redeemer's chain before it could be redeemed.
    await simPost('/sim/chain/advance', { blocks: 2 * 5_760 });
    await intake([willExpire]);
    await waitFor(async () => (await stateOf(willExpire)) === 'expired', {
      description: 'an expired outcome',
      timeoutMs: 30_000,
    });

    const tickets = await (
      await fetch(`${stack.handoffUrl}/v1/winning-tickets?limit=500`, { headers: stack.readHeaders })
    ).text();
    const metrics = await (await fetch(`${stack.handoffUrl}/metrics`)).text();
    const liabilities = await (
      await fetch(`${stack.handoffUrl}/v1/liabilities`, { headers: stack.readHeaders })
    ).text();
    const ledger = await (await fetch(`${stack.redeemerUrl}/sim/ledger`)).text();
    const jobs = await dumpJobs(stack.redis.url);
    const everything = [tickets, metrics, liabilities, ledger, jobs, stack.output()].join('\n');
    for (const secret of [canary.sig, canary.recipientRand, stack.intakeToken, stack.redeemerToken]) {
      expect(everything).not.toContain(secret.slice(2));
    }
  }, 180_000);
});

/** Every BullMQ key's content, as a dashboard could show it. */
async function dumpJobs(url: string): Promise<string> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url);
  try {
    const keys = await redis.keys('bull:*');
    const parts: string[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, 0, -1)));
      if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
    return parts.join('\n');
  } finally {
    await redis.quit();
  }
}
