// O2R subscriptions capped below the runner count: the followed and unfollowed runners are measured,
// and an unfollowed runner's sessions still reach instance-manager, from its heartbeats.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uniquePrefix, waitFor } from '@sandbox/testing';
import { readyEvent, type AdapterHarness, type AdapterQueues } from './__fixtures__/adapter-harness';
import { startAdapterWorld, type AdapterWorld } from './__fixtures__/adapter-world';
import { reserveSession } from './__fixtures__/node-sim-process';
import { listRunners, metricValue, type SimWorld } from './__fixtures__/world';

let world: SimWorld;
let adapter: AdapterHarness;
let queues: AdapterQueues;
const prefix = uniquePrefix('adapter-o2r-budget');

let parts: AdapterWorld | undefined;
beforeAll(async () => {
  parts = await startAdapterWorld({
    prefix,
    sim: { heartbeatInterval: '500ms', heartbeatTtl: '3s' },
    adapterEnv: { O2R_MAX_SUBSCRIPTIONS: '1' },
  });
  ({ world, adapter, queues } = parts);
});

afterAll(async () => {
  await parts?.close();
});

const followed = (o2r: 'followed' | 'unfollowed') =>
  metricValue(adapter.url, 'adapter_o2r_followed_runners', { o2r });

describe('O2R subscription budget', () => {
  it('follows only as many runners as allowed, measures both kinds, and learns the others from heartbeats', async () => {
    await queues.instanceEvents.add('instance-ready', readyEvent('budget-1', { capacity: 2 }));
    await queues.instanceEvents.add('instance-ready', readyEvent('budget-2', { capacity: 2 }));
    await waitFor(async () => (await followed('followed')) === 1 && (await followed('unfollowed')) === 1, {
      description: 'one runner followed, one not',
      timeoutMs: 15_000,
    });
    const unfollowed = (await listRunners(adapter)).runners.find(
      (view) => view.state === 'registered' && !view.o2r.connected,
    );
    expect(unfollowed).toBeDefined();
    const { sessionId } = await reserveSession(world.sim.publicUrl, unfollowed?.runnerId ?? '');
    const job = await waitFor(
      async () =>
        (await queues.sessionEvents()).find(
          (found) => found.name === 'session-reserved' && found.data.sessionId === sessionId,
        ),
      { description: 'the session learned from a heartbeat', timeoutMs: 10_000 },
    );
    expect(job.data).toMatchObject({ instanceId: unfollowed?.instanceId, source: 'heartbeat-reconcile' });
  });
});
