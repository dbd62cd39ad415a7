import { describe, expect, it, jest } from '@jest/globals';
import { NodeRequestError } from '@sandbox/node-client';
import type { AdapterDrainMode, RegistrationFailed, RunnerWithdrawn, SessionEvent } from '@sandbox/protocol';
import { pino } from 'pino';
import { BOOTSTRAP, FakeNode } from '../../__fixtures__/fake-node';
import { ManualClock } from '@sandbox/testing';
import type { SessionEventsPublisher } from '../../events/session-events.publisher';
import type { AdapterMetrics } from '../../metrics/adapter-metrics';
import { createBeatScheduler } from '../../scheduler/beat-scheduler';
import type { RegistrationRecord } from '../state/registration-record';
import { O2RSlots } from '../sessions/o2r-slots';
import { RunnerAgent } from './runner-agent';

const INTERVAL = 5_000;

function setup(
  options: { drain?: AdapterDrainMode; record?: Partial<RegistrationRecord>; earlyMs?: number } = {},
) {
  const clock = new ManualClock(0);
  const node = new FakeNode(clock.now);
  const logger = pino({ level: 'silent' });
  const events: Array<[string, SessionEvent | RunnerWithdrawn | RegistrationFailed]> = [];
  const publisher: SessionEventsPublisher = {
    reserved: async (event) => void events.push(['reserved', event]),
    released: async (event) => void events.push(['released', event]),
    withdrawn: async (event) => void events.push(['withdrawn', event]),
    registrationFailed: async (event) => void events.push(['failed', event]),
  };
  const metrics = new Proxy({}, { get: () => () => undefined }) as AdapterMetrics;
  const reload = jest.fn();
  const scheduler = createBeatScheduler({
    now: clock.now,
    schedule: clock.schedule,
    maxConcurrent: 8,
    logger,
    ...(options.earlyMs === undefined ? {} : { earlyMs: options.earlyMs }),
  });
  const record: RegistrationRecord = {
    version: 1,
    instance: {
      instanceId: 'inst',
      app: 'echo',
      url: 'http://10.0.0.9:8080',
      capacity: 4,
      mode: 'persistent',
      kind: 'reusable',
      metadata: '',
      readyAt: '2025-01-01T00:00:00.000Z',
    },
    runnerId: 'inst',
    phase: 'active',
    withdrawal: null,
    failure: null,
    node: null,
    sessions: [],
    pendingReleases: [],
    registeredOnce: false,
    ...options.record,
  };
  const agent = new RunnerAgent(
    {
      client: node.client,
      bootstrap: { value: () => BOOTSTRAP, reload },
      nodeUrl: 'http://node:8935',
      metrics,
      logger,
      now: clock.now,
      schedule: clock.schedule,
      random: () => 0.5,
      maxRequestTimeoutMs: 4_000,
      o2rKeepaliveTimeoutMs: 25_000,
      o2rSlots: new O2RSlots(256),
      publisher,
      scheduler,
      save: async () => undefined,
      erase: async () => undefined,
      drainMode: () => options.drain ?? 'open',
      defaultIntervalMs: INTERVAL,
    },
    record,
  );
  const beats = () => node.calls.filter((call) => call.kind === 'heartbeat');
  return { clock, node, agent, events, reload, beats, scheduler };
}

describe('runner agent', () => {
  it("registers at once, then heartbeats on a steady phase of Node's interval, with a timeout below it", async () => {
    const { clock, agent, beats } = setup();
    agent.start(false);
    await clock.advanceAndSettle(0);
    await clock.advanceAndSettle(20_000);
    expect(beats().map((call) => call.at)).toEqual([0, 3_750, 8_750, 13_750, 18_750]);
    expect(beats()[0]?.credential).toBe(BOOTSTRAP);
    expect(
      new Set(
        beats()
          .slice(1)
          .map((call) => call.credential),
      ),
    ).toEqual(new Set([agent.record.node?.credential]));
    expect(beats().every((call) => call.timeoutMs === 3_000 && call.runnerId === 'inst')).toBe(true);
    expect(agent.view()).toMatchObject({
      state: 'registered',
      advertisedCapacity: 4,
      heartbeat: { intervalMs: 5_000, ttlMs: 30_000 },
    });
  });

  it('keeps its phase when a beat starts early in a shared wake-up (one beat per interval)', async () => {
    const { clock, agent, beats, scheduler } = setup({ earlyMs: 50 });
    agent.start(false);
    await clock.advanceAndSettle(0);
    scheduler.set('other', 3_720, async () => undefined);
    await clock.advanceAndSettle(15_000);
    expect(beats().map((call) => call.at)).toEqual([0, 3_720, 8_750, 13_750]);
  });

  it('retries 503s with backoff inside the interval and keeps the phase', async () => {
    const { clock, agent, node, beats } = setup();
    agent.start(false);
    await clock.advanceAndSettle(3_750);
    let failures = 2;
    node.fail = (call) =>
      call.kind === 'heartbeat' && failures-- > 0
        ? new NodeRequestError('http', 'server busy', { status: 503 })
        : undefined;
    await clock.advanceAndSettle(6_000);
    expect(beats().map((call) => call.at)).toEqual([0, 3_750, 8_750, 8_937.5, 9_312.5]);
    expect(agent.view().lastError).toMatchObject({
      kind: 'http',
      status: 503,
      message: 'server busy',
      consecutive: 2,
    });
    await clock.advanceAndSettle(4_000);
    expect(beats().at(-1)?.at).toBe(13_750);
  });

  it('registers again at once, with the same runner id, when Node no longer knows the credential', async () => {
    const { clock, agent, node, beats, events } = setup();
    agent.start(false);
    await clock.advanceAndSettle(0);
    node.runners.get('inst')?.sessions.push('s1');
    await clock.advanceAndSettle(3_750);
    expect(agent.tracker.ids()).toEqual(['s1']);
    const old = agent.record.node?.credential;
    node.restart();
    await clock.advanceAndSettle(5_000);
    const [failed, again] = beats().slice(-2);
    expect([failed?.at, failed?.credential]).toEqual([8_750, old]);
    expect([again?.at, again?.credential, again?.runnerId]).toEqual([8_750, BOOTSTRAP, 'inst']);
    expect(agent.record.node?.credential).not.toBe(old);
    expect(
      events.map(([name, event]) => [
        name,
        (event as SessionEvent).sessionId,
        (event as SessionEvent).source,
      ]),
    ).toEqual([
      ['reserved', 's1', 'heartbeat-reconcile'],
      ['released', 's1', 're-register'],
    ]);
  });

  it('keeps trying with the bootstrap secret at the interval while Node still holds a registration it lost the credential of', async () => {
    const { clock, agent, node, beats, reload } = setup();
    node.runners.set('inst', { credential: 'lost-credential-000000000000', sessions: [] });
    agent.start(false);
    await clock.advanceAndSettle(10_000);
    expect(beats().map((call) => call.at)).toEqual([0, 4_500, 9_000]);
    expect(reload).toHaveBeenCalledTimes(3);
    expect(agent.view()).toMatchObject({ state: 'registering', lastError: { status: 401 } });
    node.runners.delete('inst');
    await clock.advanceAndSettle(5_000);
    expect(agent.view().state).toBe('registered');
  });

  it("marks a registration Node refuses as failed and reports it once, with Node's reason", async () => {
    const { clock, agent, node, events, beats } = setup();
    node.fail = () => new NodeRequestError('http', 'runner price currency must be USD', { status: 400 });
    agent.start(false);
    await clock.advanceAndSettle(60_000);
    expect(beats()).toHaveLength(1);
    expect(events).toEqual([
      [
        'failed',
        {
          instanceId: 'inst',
          runnerId: 'inst',
          status: 400,
          reason: 'runner price currency must be USD',
          at: expect.any(String),
        },
      ],
    ]);
    expect(agent.view()).toMatchObject({ state: 'failed', failure: { status: 400 } });
  });

  it('unregisters a runner whose heartbeat Node refuses (403) before reporting it', async () => {
    const { clock, agent, node, events } = setup();
    agent.start(false);
    await clock.advanceAndSettle(0);
    node.fail = (call) =>
      call.kind === 'heartbeat'
        ? new NodeRequestError('http', 'static runner cannot heartbeat', { status: 403 })
        : undefined;
    await clock.advanceAndSettle(4_000);
    expect(node.calls.at(-1)?.kind).toBe('unregister');
    expect(node.runners.size).toBe(0);
    expect(events.map(([name]) => name)).toEqual(['failed']);
    expect(agent.view().state).toBe('failed');
  });

  it('withdraws by capping at the active sessions, then unregisters once they are gone and acknowledges', async () => {
    const { clock, agent, node, events, beats } = setup();
    agent.start(false);
    await clock.advanceAndSettle(0);
    node.runners.get('inst')?.sessions.push('s1', 's2');
    await clock.advanceAndSettle(3_750);
    await agent.withdraw(
      { instanceId: 'inst', app: 'echo', reason: 'scale down', immediate: false },
      '2025-01-01T00:00:00.000Z',
    );
    await clock.advanceAndSettle(0);
    expect(beats().at(-1)).toMatchObject({ at: 3_750, capacity: 2 });
    expect(agent.view().state).toBe('capped');
    node.runners.get('inst')?.sessions.splice(0, 2);
    await clock.advanceAndSettle(5_000);
    expect(node.calls.at(-1)?.kind).toBe('unregister');
    expect(events.map(([name]) => name)).toEqual([
      'reserved',
      'reserved',
      'released',
      'released',
      'withdrawn',
    ]);
    expect(agent.view().state).toBe('withdrawn');
    const calls = node.calls.length;
    await clock.advanceAndSettle(30_000);
    expect(node.calls).toHaveLength(calls);
  });

  it('learns the sessions of a runner without an O2R subscription from its heartbeats, within one interval', async () => {
    const { clock, agent, node, events, beats } = setup();
    agent.start(false);
    await clock.advanceAndSettle(3_750);
    expect(agent.link.o2r.subscriber).toBeUndefined();
    // Node reserves a session just after a heartbeat left: the worst case.
    await clock.advanceAndSettle(1);
    node.runners.get('inst')?.sessions.push('s-late');
    const reservedAt = clock.now();
    await clock.advanceAndSettle(INTERVAL - 1);
    const learned = events.find(([kind, event]) => kind === 'reserved' && 'sessionId' in event);
    expect(learned?.[1]).toMatchObject({ sessionId: 's-late', source: 'heartbeat-reconcile' });
    expect(agent.view().sessions).toEqual(['s-late']);
    expect((beats().at(-1)?.at ?? Infinity) - reservedAt).toBeLessThanOrEqual(INTERVAL);
    node.runners.get('inst')?.sessions.splice(0);
    await clock.advanceAndSettle(INTERVAL);
    expect(events.some(([kind]) => kind === 'released')).toBe(true);
    expect(agent.view().sessions).toEqual([]);
  });

  it('parks an idle runner during a drain without registering it', async () => {
    const { clock, agent, node } = setup({ drain: 'withdrawn' });
    agent.start(false);
    await clock.advanceAndSettle(30_000);
    expect(node.calls).toEqual([]);
    expect(agent.view().state).toBe('parked');
  });
});
