import { describe, expect, it } from '@jest/globals';
import type { SessionEvent } from '@sandbox/protocol';
import type { SessionEventsPublisher } from '../../events/session-events.publisher';
import { SessionTracker } from './session-tracker';

function setup(initial: string[] = []) {
  let now = 1_000;
  const published: Array<[string, SessionEvent]> = [];
  let failing = false;
  const publisher: SessionEventsPublisher = {
    reserved: async (event) => {
      if (failing) throw new Error('redis down');
      published.push(['reserved', event]);
    },
    released: async (event) => {
      if (failing) throw new Error('redis down');
      published.push(['released', event]);
    },
    withdrawn: async () => undefined,
    registrationFailed: async () => undefined,
  };
  let changes = 0;
  const tracker = new SessionTracker(
    {
      instanceId: 'inst',
      runnerId: 'inst',
      publisher,
      now: () => now,
      onChange: () => void (changes += 1),
      onPublished: () => undefined,
    },
    { sessions: initial, pendingReleases: [] },
  );
  return {
    tracker,
    published,
    tick: (ms: number) => void (now += ms),
    now: () => now,
    fail: (value: boolean) => void (failing = value),
    changes: () => changes,
  };
}

const o2r = (event: 'reserved' | 'released', session: string) => ({
  event,
  session,
  timestamp: '2025-01-01T00:00:00.5Z',
});

describe('session tracker', () => {
  it('publishes O2R events once, with the O2R timestamp', async () => {
    const { tracker, published } = setup();
    await tracker.applyO2R(o2r('reserved', 's1'));
    await tracker.applyO2R(o2r('reserved', 's1'));
    await tracker.applyO2R(o2r('released', 's1'));
    await tracker.applyO2R(o2r('released', 's1'));
    await tracker.applyO2R(o2r('reserved', 's1'));
    expect(published.map(([name, event]) => [name, event.sessionId, event.source, event.at])).toEqual([
      ['reserved', 's1', 'o2r', '2025-01-01T00:00:00.500Z'],
      ['released', 's1', 'o2r', '2025-01-01T00:00:00.500Z'],
    ]);
    expect(tracker.ids()).toEqual([]);
  });

  it("treats Node's session_ids as authoritative, but not for sessions learned after the heartbeat left", async () => {
    const { tracker, published } = setup(['old']);
    const sentMark = tracker.mark();
    await tracker.applyO2R(o2r('reserved', 'fresh'));
    await tracker.reconcile(['missed'], sentMark, 'heartbeat-reconcile');
    expect(published.map(([name, event]) => [name, event.sessionId, event.source])).toEqual([
      ['reserved', 'fresh', 'o2r'],
      ['reserved', 'missed', 'heartbeat-reconcile'],
      ['released', 'old', 'heartbeat-reconcile'],
    ]);
    expect(tracker.ids().sort()).toEqual(['fresh', 'missed']);
  });

  it('releases a session learned just before the heartbeat left, even within the same millisecond', async () => {
    const { tracker, published } = setup();
    await tracker.applyO2R(o2r('reserved', 'gone-since'));
    const sentMark = tracker.mark();
    await tracker.reconcile([], sentMark, 'heartbeat-reconcile');
    expect(published.map(([name, event]) => [name, event.sessionId])).toEqual([
      ['reserved', 'gone-since'],
      ['released', 'gone-since'],
    ]);
    expect(tracker.ids()).toEqual([]);
  });

  it('applies nothing it could not publish, so the next heartbeat retries', async () => {
    const { tracker, published, fail } = setup();
    fail(true);
    await expect(tracker.reconcile(['s1'], 0, 'heartbeat-reconcile')).rejects.toThrow('redis down');
    expect(tracker.ids()).toEqual([]);
    fail(false);
    await tracker.reconcile(['s1'], 0, 'heartbeat-reconcile');
    expect(tracker.ids()).toEqual(['s1']);
    expect(published).toHaveLength(1);
  });

  it('keeps releases of a dropped registration pending until they are published', async () => {
    const { tracker, published, fail, changes } = setup(['a', 'b']);
    tracker.dropAll('unregister');
    expect(tracker.ids()).toEqual([]);
    expect(tracker.snapshot().pendingReleases.map((entry) => entry.sessionId)).toEqual(['a', 'b']);
    expect(changes()).toBe(1);
    fail(true);
    await expect(tracker.flushPending()).rejects.toThrow();
    expect(tracker.pendingCount).toBe(2);
    fail(false);
    await tracker.flushPending();
    expect(tracker.pendingCount).toBe(0);
    expect(published.map(([name, event]) => [name, event.sessionId, event.source])).toEqual([
      ['released', 'a', 'unregister'],
      ['released', 'b', 'unregister'],
    ]);
    await tracker.applyO2R(o2r('released', 'a'));
    expect(published).toHaveLength(2);
  });
});
