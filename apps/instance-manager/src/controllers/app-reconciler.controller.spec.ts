import { describe, expect, it } from '@jest/globals';
import { createMemoryLogger } from '@sandbox/testing';
import { createFailureBackoff } from '../domain/failure-backoff';
import { singleSessionSpec } from '../domain/spec-fixtures.fixture';
import { FakeHost } from '../test-support/fake-runtime.fixture';
import type { StoredApp } from '../store/app-store';
import { createAppReconciler } from './app-reconciler.controller';

const spec = singleSessionSpec(1, 2);

/** A deleting app with no instances left, and a driver whose per-app cleanup fails `failures` times. */
function deletedApp(failures: number) {
  const stored = new Map<string, StoredApp>([
    [
      'demo',
      {
        name: 'demo',
        spec,
        specDigest: 'd1',
        templateHash: 'h1',
        status: 'deleting',
        createdAt: 0,
        updatedAt: 0,
        registrationRefusals: [],
      },
    ],
  ]);
  const removals: string[] = [];
  let failuresLeft = failures;
  const driver = {
    ...new FakeHost().driver(),
    async removeApp(app: string) {
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        throw new Error('apiserver unavailable');
      }
      removals.push(app);
    },
  };
  const apps = {
    get: async (name: string) => stored.get(name),
    removeIfDone: async (name: string) => stored.get(name)?.status === 'deleting' && stored.delete(name),
  };
  const unexpected = async () => {
    throw new Error('no instance should be touched');
  };
  const reconcile = createAppReconciler(
    {
      apps,
      store: { listLive: async () => [] },
      driver,
      backoff: createFailureBackoff(),
      clock: { now: () => 0, sleep: async () => undefined },
      logger: createMemoryLogger('silent').logger,
    },
    { starter: { create: unexpected }, ender: { cancel: unexpected, withdraw: unexpected } },
    () => undefined,
  );
  return { reconcile, stored, removals };
}

describe('the app reconciler deleting an app', () => {
  it('keeps the app deleting until its runtime objects are removed, retrying on later passes', async () => {
    const { reconcile, stored, removals } = deletedApp(1);

    await expect(reconcile('demo')).rejects.toThrow('apiserver unavailable');
    expect(stored.get('demo')?.status).toBe('deleting');
    expect(removals).toEqual([]);

    await reconcile('demo');
    expect(removals).toEqual(['demo']);
    expect(stored.has('demo')).toBe(false);
  });

  it('removes the runtime objects and the record in one pass when nothing fails', async () => {
    const { reconcile, stored, removals } = deletedApp(0);
    await reconcile('demo');
    expect(removals).toEqual(['demo']);
    expect(stored.has('demo')).toBe(false);
  });
});
