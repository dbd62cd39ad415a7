import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AdapterCommandResultSchema, type AdapterCommandResult } from '@sandbox/protocol';
import { uniquePrefix, waitFor } from '@sandbox/testing';
import { readyEvent, type AdapterHarness, type AdapterQueues } from './__fixtures__/adapter-harness';
import { startAdapterWorld, type AdapterWorld } from './__fixtures__/adapter-world';
import { discover, reserveSession, simCounts, stopSession } from './__fixtures__/node-sim-process';
import { listRunners, runnerView, type SimWorld } from './__fixtures__/world';

let world: SimWorld;
let adapter: AdapterHarness;
let queues: AdapterQueues;
const prefix = uniquePrefix('adapter-commands');
const sessions: Record<string, string[]> = {};

async function command(
  name: 'withdraw-all' | 'cancel-sessions' | 'resume',
  drainId: string,
  jobId: string,
): Promise<AdapterCommandResult> {
  await queues.commands.add(name, { drainId, requestedAt: new Date().toISOString() }, { jobId });
  const outcome = await waitFor(
    async () => {
      const found = await queues.commandOutcome(jobId);
      return found?.state === 'completed' || found?.state === 'failed' ? found : undefined;
    },
    { description: `${name} to complete`, timeoutMs: 30_000 },
  );
  expect(outcome.failedReason).toBeUndefined();
  return AdapterCommandResultSchema.parse(outcome.returnvalue);
}

const jobs = async (name: string) => (await queues.sessionEvents()).filter((job) => job.name === name);

let parts: AdapterWorld | undefined;
beforeAll(async () => {
  parts = await startAdapterWorld({ prefix, sim: { heartbeatInterval: '500ms', heartbeatTtl: '2s' } });
  ({ world, adapter, queues } = parts);
  for (const id of ['cmd-1', 'cmd-2', 'cmd-3'])
    await queues.instanceEvents.add('instance-ready', readyEvent(id, { capacity: 3 }));
  await waitFor(
    async () =>
      (await listRunners(adapter)).runners.filter((view) => view.state === 'registered').length === 3,
    {
      description: 'three registered runners',
      timeoutMs: 20_000,
    },
  );
  sessions['cmd-1'] = [(await reserveSession(world.sim.publicUrl, 'cmd-1')).sessionId ?? ''];
  sessions['cmd-2'] = [
    (await reserveSession(world.sim.publicUrl, 'cmd-2')).sessionId ?? '',
    (await reserveSession(world.sim.publicUrl, 'cmd-2')).sessionId ?? '',
  ];
  await waitFor(
    async () =>
      (await runnerView(adapter, 'cmd-2'))?.sessions.length === 2 &&
      (await runnerView(adapter, 'cmd-1'))?.sessions.length === 1,
    {
      description: 'the sessions to be known',
      timeoutMs: 10_000,
    },
  );
});

afterAll(async () => {
  await parts?.close();
});

describe('adapter-commands', () => {
  it('withdraw-all caps busy runners at their sessions and unregisters idle ones', async () => {
    const result = await command('withdraw-all', 'drain-1', 'withdraw-all.drain-1');
    expect(result).toMatchObject({
      command: 'withdraw-all',
      runners: 3,
      capped: 2,
      unregistered: 1,
      registered: 0,
      activeSessions: 3,
    });
    expect(await discover(world.sim.publicUrl)).toEqual([]);
    expect((await simCounts(world.sim.metricsUrl)).runners).toBe(2);
    expect((await runnerView(adapter, 'cmd-2'))?.advertisedCapacity).toBe(2);
    expect((await runnerView(adapter, 'cmd-3'))?.state).toBe('parked');
    expect((await listRunners(adapter)).drain).toMatchObject({ mode: 'withdrawn', drainId: 'drain-1' });
  });

  it('withdraw-all is idempotent, and parks instances that become ready during the drain', async () => {
    await queues.instanceEvents.add('instance-ready', readyEvent('cmd-4', { capacity: 3 }));
    const again = await command('withdraw-all', 'drain-1', 'withdraw-all.drain-1.retry');
    expect(again).toMatchObject({ runners: 4, capped: 2, unregistered: 2, activeSessions: 3 });
    expect((await simCounts(world.sim.metricsUrl)).runners).toBe(2);
  });

  it('a capped runner follows its sessions down and is unregistered when the last one ends', async () => {
    expect(await stopSession(world.sim.publicUrl, 'cmd-2', sessions['cmd-2']?.[0] ?? '')).toBe(200);
    await waitFor(async () => (await runnerView(adapter, 'cmd-2'))?.advertisedCapacity === 1, {
      description: 'cmd-2 capped at 1',
      timeoutMs: 10_000,
    });
    expect(await stopSession(world.sim.publicUrl, 'cmd-1', sessions['cmd-1']?.[0] ?? '')).toBe(200);
    await waitFor(async () => (await runnerView(adapter, 'cmd-1'))?.state === 'parked', {
      description: 'cmd-1 parked',
      timeoutMs: 10_000,
    });
    expect((await simCounts(world.sim.metricsUrl)).runners).toBe(1);
  });

  it('cancel-sessions unregisters what remains, so Node releases every session', async () => {
    const result = await command('cancel-sessions', 'drain-1', 'cancel-sessions.drain-1');
    expect(result).toMatchObject({
      command: 'cancel-sessions',
      runners: 4,
      unregistered: 4,
      capped: 0,
      activeSessions: 0,
    });
    expect(await simCounts(world.sim.metricsUrl)).toEqual({ runners: 0, sessions: 0 });
    const last = sessions['cmd-2']?.[1];
    await waitFor(async () => (await jobs('session-released')).some((job) => job.data.sessionId === last), {
      description: 'the cancelled session released',
      timeoutMs: 10_000,
    });
  });

  it('a late retry of an earlier command of the same drain does not undo a later one', async () => {
    const late = await command('withdraw-all', 'drain-1', 'withdraw-all.drain-1.late');
    expect(late).toMatchObject({ unregistered: 4 });
    expect((await listRunners(adapter)).drain.mode).toBe('cancelled');
  });

  it('resume registers every runner again with its full capacity', async () => {
    const result = await command('resume', 'drain-1', 'resume.drain-1');
    expect(result).toMatchObject({
      command: 'resume',
      runners: 4,
      registered: 4,
      capped: 0,
      unregistered: 0,
    });
    const listed = await discover(world.sim.publicUrl);
    expect(listed).toHaveLength(4);
    expect(listed.every((runner) => runner.capacity === 3 && runner.capacity_available === 3)).toBe(true);
    expect((await listRunners(adapter)).drain).toMatchObject({ mode: 'open', drainId: 'drain-1' });
    const again = await command('resume', 'drain-1', 'resume.drain-1.retry');
    expect(again).toMatchObject({ registered: 4 });
  });
});
