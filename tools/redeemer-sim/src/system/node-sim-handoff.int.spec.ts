import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@sandbox/testing';
import { startHandoffStack, type HandoffStack } from './handoff-stack';
import { readTicketStates } from './handoff-views';
import { compareLedgers, readSimLedger } from './ledger-check';
import { startNodeSimPayer, type NodeSimPayer } from './node-sim-payer';

let stack: HandoffStack;
let nodeSim: NodeSimPayer | undefined;

beforeAll(async () => {
  stack = await startHandoffStack();
}, 120_000);
afterAll(async () => {
  await nodeSim?.process.stop();
  await stack?.stop();
}, 60_000);

const pendingFiles = (): string[] =>
  readdirSync(join(stack.dir, 'node-sim', 'data', 'outbox', 'pending')).filter((name) =>
    name.endsWith('.json'),
  );

describe('node-sim outbox → redemption-handoff → redeemer-sim', () => {
  it('delivers every winner node-sim was paid with exactly once, through a handoff and a Redis crash', async () => {
    const payer = await startNodeSimPayer(
      join(stack.dir, 'node-sim'),
      stack.handoffUrl,
      join(stack.dir, 'intake-secret'),
    );
    nodeSim = payer;
    const produced = new Set<string>();
    const buy = async (sessions: number): Promise<void> => {
      for (let i = 0; i < sessions; i += 1) for (const hash of await payer.buySession()) produced.add(hash);
    };
    await buy(3);
    await stack.handoff().kill9();
    await buy(3);
    await stack.startHandoff();
    await stack.redis.kill9();
    await buy(2);
    await stack.redis.restart();
    await buy(2);
    expect(produced.size).toBe(1_000);

    await waitFor(() => pendingFiles().length === 0, {
      description: "node-sim's outbox to drain",
      timeoutMs: 120_000,
      intervalMs: 250,
    });
    await waitFor(
      async () =>
        (await readSimLedger(stack.redeemerUrl)).tickets.filter((t) => t.outcome).length >= produced.size,
      {
        description: 'the redeemer to decide every winner',
        timeoutMs: 120_000,
        intervalMs: 500,
      },
    );
    const comparison = compareLedgers(produced, await readSimLedger(stack.redeemerUrl));
    expect(comparison).toMatchObject({ lost: [], unknown: [], submittedTwice: [], undecided: [] });
    expect(comparison.outcomes).toEqual({ redeemed: 1_000 });
    expect(await readTicketStates(stack)).toEqual({ redeemed: 1_000 });
    expect(readdirSync(join(stack.dir, 'node-sim', 'data', 'outbox', 'rejected'))).toEqual([]);
  }, 600_000);
});
