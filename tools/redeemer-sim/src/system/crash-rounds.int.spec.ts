import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCrashRounds } from './crash-rounds';
import { startHandoffStack, type HandoffStack } from './handoff-stack';
import { readTicketStates } from './handoff-views';

let stack: HandoffStack;

beforeAll(async () => {
  // Latency and lost acknowledgements at the redeemer keep deliveries in flight and retried.
  stack = await startHandoffStack({ redeemerEnv: { SIM_LATENCY_MS: '40', SIM_LOST_ACK_RATE: '0.05' } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe('crash safety', () => {
  it('loses no winner and submits none twice across 50 kill -9 rounds', async () => {
    const report = await runCrashRounds(stack, { rounds: 50, seed: 20_251, ticketsPerRound: 40 });
    expect(report.rejectedAtIntake).toBe(0);
    expect(report.acknowledged).toBe(report.produced);
    expect(report.lost).toEqual([]);
    expect(report.unknown).toEqual([]);
    expect(report.submittedTwice).toEqual([]);
    expect(report.undecided).toEqual([]);
    expect(report.outcomes).toEqual({ redeemed: report.produced });
    for (const count of Object.values(report.rounds)) expect(count).toBeGreaterThan(0);
    // Exactly one terminal state per ticket on the handoff side too.
    const states = await readTicketStates(stack);
    expect(states).toEqual({ redeemed: report.produced });
  }, 1_500_000);
});
