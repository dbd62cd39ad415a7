import { describe, expect, it } from '@jest/globals';
import type { AdapterDrainStatus } from '@sandbox/protocol';
import { ManualClock } from '@sandbox/testing';
import { applyDrainCommand, CommandNotSettledError } from './drain-commands';
import type { RunnerManager } from '../runner-manager';

/** A manager with one registration that settles when told to. */
function fakeManager(initial: AdapterDrainStatus) {
  const state = { drain: initial, settled: false, pokes: 0, saved: [] as AdapterDrainStatus[] };
  const agent = {
    poke: () => void (state.pokes += 1),
    settled: () => state.settled,
    target: () => ({ kind: 'serve', capacity: 1, capped: true }),
    tracker: { count: 1 },
  };
  const manager = {
    get drainStatus() {
      return state.drain;
    },
    async setDrain(status: AdapterDrainStatus) {
      state.saved.push(status);
      state.drain = status;
      agent.poke();
    },
    commandable: () => [agent],
  } as unknown as RunnerManager;
  return { manager, state };
}

const command = { drainId: 'd-1', requestedAt: '2025-01-01T00:00:00.000Z' };

describe('applyDrainCommand', () => {
  it('sets the drain mode, waits until Node shows it, and reports the registrations', async () => {
    const clock = new ManualClock(0);
    const { manager, state } = fakeManager({ mode: 'open', drainId: null, since: null });
    const pending = applyDrainCommand('withdraw-all', command, { manager, ...clock, timeoutMs: 10_000 });
    await clock.advanceAndSettle(500);
    expect(state.drain.mode).toBe('withdrawn');
    state.settled = true;
    await clock.advanceAndSettle(100);
    await expect(pending).resolves.toMatchObject({
      command: 'withdraw-all',
      runners: 1,
      capped: 1,
      activeSessions: 1,
    });
  });

  it('never lets a late earlier command of the same drain undo a later one', async () => {
    const clock = new ManualClock(0);
    const { manager, state } = fakeManager({ mode: 'cancelled', drainId: 'd-1', since: null });
    state.settled = true;
    await applyDrainCommand('withdraw-all', command, { manager, ...clock, timeoutMs: 10_000 });
    expect(state.saved).toEqual([]);
    expect(state.drain.mode).toBe('cancelled');
    expect(state.pokes).toBe(1);
    await applyDrainCommand(
      'withdraw-all',
      { ...command, drainId: 'd-2' },
      { manager, ...clock, timeoutMs: 10_000 },
    );
    expect(state.drain).toMatchObject({ mode: 'withdrawn', drainId: 'd-2' });
  });

  it('fails (to be retried) when Node does not show the result in time, or when the adapter stops', async () => {
    const clock = new ManualClock(0);
    const { manager } = fakeManager({ mode: 'open', drainId: null, since: null });
    const late = applyDrainCommand('resume', command, { manager, ...clock, timeoutMs: 1_000 });
    const outcome = late.catch((error: unknown) => error);
    await clock.advanceAndSettle(1_100);
    expect(await outcome).toBeInstanceOf(CommandNotSettledError);
    const stopping = new AbortController();
    const stopped = applyDrainCommand('resume', command, {
      manager,
      ...clock,
      timeoutMs: 60_000,
      signal: stopping.signal,
    });
    const reason = stopped.catch((error: unknown) => (error as Error).message);
    stopping.abort();
    await clock.advanceAndSettle(200);
    expect(await reason).toBe('the adapter is shutting down');
  });
});
