import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DrainRecord, ErrorBody } from '@sandbox/protocol';
import { createTestAccess, waitFor } from '@sandbox/testing';
import { startDrainWorld, type DrainWorld, type RunningController } from './__fixtures__/drain-world';
import { openSse, type SseClient } from './__fixtures__/sse-backend';

let world: DrainWorld;
let controller: RunningController;
const INSTANCES = ['drain-i-1', 'drain-i-2', 'drain-i-3'];
const HOUR = 3_600_000;
const access = createTestAccess();
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };

const post = async (path: string, body?: unknown) => {
  const response = await fetch(`${controller.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...access.headers('admin') },
    body: JSON.stringify(body ?? {}),
  });
  return { status: response.status, body: (await response.json()) as DrainRecord & ErrorBody };
};

const getDrain = async (id: string) =>
  (await (
    await fetch(`${controller.url}/v1/drains/${id}`, { headers: access.headers('read') })
  ).json()) as DrainRecord;

const stopSession = async (runnerId: string, sessionId: string) => {
  const response = await fetch(`${world.sim.publicUrl}/apps/${runnerId}/session/${sessionId}/stop`, {
    method: 'POST',
  });
  await response.body?.cancel();
  return response.status;
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
  world = await startDrainWorld('drain-int', { baseEnv: BASE_ENV, access });
  await world.registerInstances(INSTANCES);
  controller = await world.startController();
}, 120_000);

afterAll(async () => {
  await world?.close();
  access.cleanup();
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
    const metrics = await (await fetch(`${controller.url}/metrics`)).text();
    expect(metrics).toMatch(/^drain_phase\{phase="draining",svc="drain-controller"\} 1$/mu);
    expect(metrics).toMatch(/^drain_sessions_remaining\{app="echo",svc="drain-controller"\} 1$/mu);
    expect(metrics).toMatch(/^drain_seconds_to_deadline\{svc="drain-controller"\} 3[56]\d\d/mu);
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
    // Closing the stream does not end a session at Node: only the client's stop (or a drain) does.
    expect(await stopSession('drain-i-2', again.sessionId)).toBe(200);
    expect(controller.logs()).toContain('"msg":"drain phase changed"');
    expect(controller.logs()).not.toContain(world.secret);
  }, 120_000);

  it('moves on as soon as the last session ends', async () => {
    const { sessionId, sse } = await streamingSession('drain-i-3');
    const pidBefore = world.sim.pid();
    const { body } = await post('/v1/drains', { window: '6h', reason: 'upgrade', target: { restart: true } });
    await waitFor(async () => (await getDrain(body.id)).sessions?.total === 1, {
      description: 'the session counted',
    }).catch(async (error: unknown) => {
      throw new Error(
        `${String(error)}: ${JSON.stringify(await getDrain(body.id))} ${JSON.stringify(await world.runners())}`,
      );
    });
    expect(await stopSession('drain-i-3', sessionId)).toBe(200);
    const done = await world.waitPhase(controller.url, body.id, ['done', 'failed'], 60_000);
    expect(done.phase).toBe('done');
    expect(done.history[2]).toMatchObject({ phase: 'cancelling', note: 'no session left' });
    expect(Date.parse(done.history[2]?.at ?? '')).toBeLessThan(Date.parse(done.deadline));
    expect(world.sim.pid()).not.toBe(pidBefore);
    sse.close();
    await waitFor(allRegistered, { description: 'every instance registered again', timeoutMs: 10_000 });
  }, 120_000);

  it('refuses a second drain and bad input, extends up to 12 h, and aborts without replacing Node', async () => {
    const pidBefore = world.sim.pid();
    const request = {
      window: 'PT6H',
      reason: 'upgrade',
      target: { image: 'livepeer/node:1.2.3' },
      quietPeriod: '1h',
    };
    const { status, body } = await post('/v1/drains', request);
    expect(status).toBe(201);
    await world.waitPhase(controller.url, body.id, ['draining']);
    const second = await post('/v1/drains', request);
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('drain_in_progress');
    const bad = await post('/v1/drains', { window: '13h', reason: 'x', target: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues?.map((issue) => issue.path)).toEqual(['body.window', 'body.target']);
    expect(
      (await fetch(`${controller.url}/v1/drains/nope`, { headers: access.headers('read') })).status,
    ).toBe(404);
    expect((await fetch(`${controller.url}/v1/drains`)).status).toBe(401);
    const asReader = await fetch(`${controller.url}/v1/drains/${body.id}/abort`, {
      method: 'POST',
      headers: access.headers('read'),
    });
    expect(asReader.status).toBe(403);
    expect((await post('/v1/drains/nope/abort')).status).toBe(404);

    const extended = await post(`/v1/drains/${body.id}/extend`, { by: '6h' });
    expect(extended.status).toBe(200);
    expect(Date.parse(extended.body.deadline) - Date.parse(body.createdAt)).toBe(12 * HOUR);
    const tooFar = await post(`/v1/drains/${body.id}/extend`, { by: '1s' });
    expect(tooFar.status).toBe(409);
    expect(tooFar.body.error.code).toBe('drain_window_exceeded');
    expect((await post(`/v1/drains/${body.id}/extend`, { by: 'soon' })).status).toBe(400);

    const aborted = await post(`/v1/drains/${body.id}/abort`);
    expect(aborted.body.phase).toBe('resuming');
    const end = await world.waitPhase(controller.url, body.id, ['aborted'], 30_000);
    expect(end.replacement).toBeNull();
    expect(world.sim.pid()).toBe(pidBefore);
    await waitFor(allRegistered, { description: 'every instance registered again', timeoutMs: 10_000 });
    const again = await post(`/v1/drains/${body.id}/abort`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('drain_finished');
    const listed = await fetch(`${controller.url}/v1/drains`, { headers: access.headers('read') });
    const list = (await listed.json()) as { drains: DrainRecord[] };
    expect(list.drains[0]?.id).toBe(body.id);
  }, 120_000);

  it('fails after ADAPTER_COMMAND_TIMEOUT_MS, without replacing Node, when no adapter takes its commands', async () => {
    const pidBefore = world.sim.pid();
    // Its own queues: no adapter consumes them, as when the adapter is down.
    const alone = await world.startController({
      QUEUE_PREFIX: `${world.prefix}-alone`,
      KEY_PREFIX: `${world.prefix}-alone-drain`,
      ADAPTER_COMMAND_TIMEOUT_MS: '1500',
    });
    try {
      const response = await fetch(`${alone.url}/v1/drains`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...access.headers('admin') },
        body: JSON.stringify({ window: 'PT1H', reason: 'upgrade', target: { restart: true } }),
      });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as DrainRecord;
      const record = await world.waitPhase(alone.url, id, ['resuming'], 20_000);
      expect(record.outcome).toBe('failed');
      expect(record.lastError?.message).toBe(
        'the adapter did not complete withdraw-all within 1500 ms (is it running and reaching Node?)',
      );
      expect(record.history.map((change) => change.phase)).toEqual(['withdrawing', 'resuming']);
      expect(record.replacement).toBeNull();
      expect(world.sim.pid()).toBe(pidBefore);
    } finally {
      await alone.stop();
    }
  }, 60_000);

  it('keeps a 12 h deadline across restarts and fires it within 5 s of the stored time', async () => {
    const { sse } = await streamingSession('drain-i-1');
    const { body } = await post('/v1/drains', {
      window: '12h',
      reason: 'upgrade',
      target: { restart: true },
    });
    await world.waitPhase(controller.url, body.id, ['draining']);
    await controller.stop();
    controller = await world.startController();
    const resumed = await world.waitPhase(controller.url, body.id, ['draining']);
    expect(resumed.deadline).toBe(body.deadline);
    await controller.stop();
    world.advanceClock(12 * HOUR - 3_000);
    const eventsWhileDown = sse.events();
    await waitFor(async () => sse.events() > eventsWhileDown + 5, {
      description: 'events with no controller',
    });
    controller = await world.startController();
    const done = await world.waitPhase(controller.url, body.id, ['done', 'failed'], 60_000);
    const cancelled = done.history.find((change) => change.phase === 'cancelling');
    const late = Date.parse(cancelled?.at ?? '') - Date.parse(body.deadline);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThanOrEqual(5_000);
    expect(done.phase).toBe('done');
    await waitFor(async () => sse.endedAt() !== undefined, { description: 'the stream cut' });
  }, 120_000);
});
