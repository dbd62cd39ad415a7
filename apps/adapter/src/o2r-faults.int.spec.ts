import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import { readyEvent, type AdapterHarness, type AdapterQueues } from './__fixtures__/adapter-harness';
import { startAdapterWorld, type AdapterWorld } from './__fixtures__/adapter-world';
import { reserveSession, stopSession } from './__fixtures__/node-sim-process';
import { metricValue, o2rEventsProcessed, runnerView, type SimWorld } from './__fixtures__/world';

let redis: RedisFixture;
let world: SimWorld;
let adapter: AdapterHarness;
let queues: AdapterQueues;
const prefix = uniquePrefix('adapter-o2r');
// Node publishes a keepalive every 10 s, so the watchdog must wait longer than that.
const KEEPALIVE_TIMEOUT_MS = 12_000;

const jobs = async (name: string) => (await queues.sessionEvents()).filter((job) => job.name === name);
const reservedJob = (sessionId: string | undefined) =>
  waitFor(async () => (await jobs('session-reserved')).find((job) => job.data.sessionId === sessionId), {
    description: `session-reserved for ${sessionId}`,
    timeoutMs: 15_000,
  });
const gaps = () => metricValue(adapter.url, 'adapter_o2r_gaps_total');
const watchdogReconnects = () =>
  metricValue(adapter.url, 'adapter_o2r_reconnects_total', { reason: 'keepalive-timeout' });
/**
 * What the adapter did about registrations and O2R (its metrics and log lines), for a failure
 * message: the keepalive test depends on the registration staying valid while O2R is frozen (an
 * expiry under a stalled machine re-registers and restarts the subscription and its watchdog).
 */
async function o2rStory(): Promise<string> {
  const text = await fetch(`${adapter.url}/metrics`)
    .then((response) => response.text())
    .catch(() => '');
  const counters = text
    .split('\n')
    .filter((line) => /^adapter_(registrations_total|o2r_reconnects_total|o2r_gaps_total)\{/u.test(line));
  const logs = adapter
    .logs()
    .split('\n')
    .filter((line) => /O2R|registered|no longer knows|call failed/u.test(line))
    .slice(-20);
  return [...counters, ...logs].join('\n');
}
/** Runs `step`; if it fails, rethrows with {@link o2rStory} appended. */
async function explained<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- adapter registrations and O2R ---\n${await o2rStory()}`, {
      cause: error,
    });
  }
}
/** Reserves a session and waits until O2R delivered its event (a heartbeat may have published it first). */
async function reserveSeenOnO2R(): Promise<string> {
  const before = await o2rEventsProcessed(adapter.url);
  const { sessionId } = await reserveSession(world.sim.publicUrl, 'o2r-1');
  await reservedJob(sessionId);
  await waitFor(async () => (await o2rEventsProcessed(adapter.url)) > before, {
    description: 'the reservation delivered on O2R',
    timeoutMs: 15_000,
  });
  return sessionId ?? '';
}

let parts: AdapterWorld | undefined;
beforeAll(async () => {
  parts = await startAdapterWorld({
    prefix,
    sim: { heartbeatInterval: '500ms', heartbeatTtl: '3s' },
    adapterEnv: { O2R_KEEPALIVE_TIMEOUT_MS: String(KEEPALIVE_TIMEOUT_MS) },
  });
  ({ redis, world, adapter, queues } = parts);
  await queues.instanceEvents.add('instance-ready', readyEvent('o2r-1', { capacity: 20 }));
  await waitFor(async () => (await runnerView(adapter, 'o2r-1'))?.o2r.connected === true, {
    description: 'the O2R subscription',
    timeoutMs: 15_000,
  });
});

afterAll(async () => {
  world?.proxy.thaw();
  await adapter?.stop();
  await queues?.close();
  await world?.close();
  await redis?.stop();
});

describe('O2R faults', () => {
  it('learns reservations and releases it missed on O2R from the heartbeat session_ids', async () => {
    world.proxy.freezeO2R();
    const { sessionId } = await reserveSession(world.sim.publicUrl, 'o2r-1');
    expect((await reservedJob(sessionId)).data.source).toBe('heartbeat-reconcile');
    expect(await stopSession(world.sim.publicUrl, 'o2r-1', sessionId ?? '')).toBe(200);
    const released = await waitFor(
      async () => (await jobs('session-released')).find((job) => job.data.sessionId === sessionId),
      {
        description: 'the missed release',
        timeoutMs: 15_000,
      },
    );
    expect(released.data.source).toBe('heartbeat-reconcile');
    world.proxy.thaw();
    // The stalled read then delivers the old events: they are duplicates and publish nothing new.
    const next = await reserveSeenOnO2R();
    expect((await queues.sessionEvents()).filter((job) => job.data.sessionId === sessionId)).toHaveLength(2);
    await stopSession(world.sim.publicUrl, 'o2r-1', next);
  });

  it('resumes from Lp-Trickle-Latest after a 470 and stays consistent', async () => {
    const gapsBefore = await gaps();
    world.proxy.freezeO2R();
    // More events than the five segments Node keeps.
    const sessions: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      sessions.push((await reserveSession(world.sim.publicUrl, 'o2r-1')).sessionId ?? '');
    }
    world.proxy.thaw();
    await waitFor(async () => (await gaps()) > gapsBefore, {
      description: 'a 470 gap',
      timeoutMs: 15_000,
    });
    for (const id of sessions) await reservedJob(id);
    await waitFor(async () => (await runnerView(adapter, 'o2r-1'))?.sessions.length === sessions.length, {
      description: 'every session known',
      timeoutMs: 15_000,
    });
    const after = await reserveSession(world.sim.publicUrl, 'o2r-1');
    expect((await reservedJob(after.sessionId)).data.source).toBe('o2r');
    for (const id of [...sessions, after.sessionId ?? ''])
      await stopSession(world.sim.publicUrl, 'o2r-1', id);
  });

  it(`reconnects when no keepalive arrives for ${KEEPALIVE_TIMEOUT_MS / 1_000} s`, async () => {
    const before = await watchdogReconnects();
    world.proxy.freezeO2R();
    await explained(() =>
      waitFor(async () => (await watchdogReconnects()) > before, {
        description: 'the keepalive watchdog to fire',
        timeoutMs: KEEPALIVE_TIMEOUT_MS + 15_000,
      }),
    );
    world.proxy.thaw();
    await explained(reserveSeenOnO2R);
  }, 60_000);
});
