import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DrainRecord, ErrorBody } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';
import { startDrainWorld, type DrainWorld, type RunningController } from './__fixtures__/drain-world';
import { openSse, type SseClient } from './__fixtures__/sse-backend';

let world: DrainWorld;
let controller: RunningController;
const INSTANCES = ['drain-i-1', 'drain-i-2', 'drain-i-3'];
const HOUR = 3_600_000;

const post = async (path: string, body?: unknown) => {
  const response = await fetch(`${controller.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  return { status: response.status, body: (await response.json()) as DrainRecord & ErrorBody };
};

const reserve = async (runnerId: string) => {
  const response = await fetch(`${world.sim.publicUrl}/apps/${runnerId}/session`, { method: 'POST' });
  const body = (await response.json()) as { session_id?: string };
  return { status: response.status, sessionId: body.session_id };
};

const allRegistered = async () => {
  const { runners } = await world.runners();
  return runners.length === INSTANCES.length && runners.every((runner) => runner.state === 'registered');
};

/** A session on `runnerId` with an SSE stream through Node, once the adapter sees it. */
async function streamingSession(runnerId: string): Promise<{ sessionId: string; sse: SseClient }> {
  const { status, sessionId } = await reserve(runnerId);
  expect(status).toBe(200);
  const sse = await openSse(`${world.sim.publicUrl}/apps/${runnerId}/session/${sessionId}/app/events`);
  await waitFor(
    async () => (await world.runners()).runners.some((runner) => runner.sessions.includes(sessionId ?? '')),
    { description: 'the adapter to see the session', timeoutMs: 10_000 },
  );
  return { sessionId: sessionId ?? '', sse };
}

beforeAll(async () => {
  world = await startDrainWorld('drain-int');
  await world.addInstances(INSTANCES);
  await waitFor(allRegistered, { description: 'every instance registered', timeoutMs: 30_000 });
  controller = await world.startController();
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe('a drain', () => {
  it('keeps a streaming session through the window, cuts it at the deadline, replaces Node and resumes', async () => {
    const { sse } = await streamingSession('drain-i-1');
    const pidBefore = world.sim.pid();
    const created = await post('/v1/drains', { window: '1h', reason: 'upgrade', target: { restart: true } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const draining = await world.waitPhase(controller.url, id, ['draining']);
    expect(draining.runners).toMatchObject({ runners: 3, capped: 1, unregistered: 2 });

    // From the withdrawal on, Node refuses new reservations, on the capped runner and the others.
    for (const runnerId of INSTANCES) expect((await reserve(runnerId)).status).not.toBe(200);
    const flowing = sse.events();
    await waitFor(async () => sse.events() >= flowing + 10, { description: 'events during the drain' });
    const seen = await world.waitPhase(controller.url, id, ['draining']);
    expect(seen.sessions).toMatchObject({ total: 1, byApp: { echo: 1 } });
    expect(sse.endedAt()).toBeUndefined();
    expect(world.sim.pid()).toBe(pidBefore);

    const cutAllowedFrom = Date.now();
    world.advanceClock(HOUR);
    const done = await world.waitPhase(controller.url, id, ['done', 'failed'], 60_000);
    expect(done.phase).toBe('done');
    expect(done.history.map((change) => change.phase)).toEqual([
      'withdrawing',
      'draining',
      'cancelling',
      'replacing',
      'awaiting-node',
      'resuming',
      'done',
    ]);
    expect(done.history[2]?.note).toBe('window expired');
    await waitFor(async () => sse.endedAt() !== undefined, { description: 'the stream cut' });
    expect(sse.endedAt()).toBeGreaterThanOrEqual(cutAllowedFrom);

    // A new process, every instance registered again, and served.
    expect(world.sim.pid()).not.toBe(pidBefore);
    expect(done.runners).toMatchObject({ runners: 3, registered: 3 });
    await waitFor(allRegistered, { description: 'every instance registered again', timeoutMs: 10_000 });
    const again = await streamingSession('drain-i-2');
    await waitFor(async () => again.sse.events() >= 3, { description: 'events after the resume' });
    again.sse.close();
    expect(controller.logs()).toContain('"msg":"drain phase changed"');
  }, 120_000);
});
