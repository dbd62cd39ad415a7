import { describe, expect, it } from '@jest/globals';
import type { InstanceView } from './plan-app';
import { desiredReusable, planApp } from './plan-app';
import { reusableSpec, singleSessionSpec } from './spec-fixtures.fixture';

let clock = 0;
const view = (id: string, state: InstanceView['state'], extra: Partial<InstanceView> = {}): InstanceView => ({
  id,
  state,
  templateHash: 'h1',
  sessions: 0,
  createdAt: (clock += 1),
  ...extra,
});

const plan = (
  spec: ReturnType<typeof singleSessionSpec>,
  instances: InstanceView[],
  extra: { deleting?: boolean; canCreate?: boolean } = {},
) =>
  planApp({
    spec,
    templateHash: 'h1',
    deleting: extra.deleting ?? false,
    instances,
    canCreate: extra.canCreate ?? true,
  });

describe('planApp: single-session', () => {
  it('fills the warm pool from nothing', () => {
    expect(plan(singleSessionSpec(3, 5), [])).toEqual({
      create: 3,
      cancel: [],
      withdraw: [],
      removeApp: false,
    });
  });

  it('replaces a taken instance at once, and starting ones count towards the pool', () => {
    const instances = [view('a', 'taken', { sessions: 1 }), view('b', 'ready'), view('c', 'starting')];
    expect(plan(singleSessionSpec(3, 10), instances).create).toBe(1);
  });

  it('never exceeds the maximum, counting taken and withdrawing instances', () => {
    const instances = [view('a', 'taken'), view('b', 'taken'), view('c', 'withdrawing'), view('d', 'ready')];
    expect(plan(singleSessionSpec(3, 5), instances).create).toBe(1);
    expect(plan(singleSessionSpec(3, 4), instances).create).toBe(0);
  });

  it('starts on demand up to the maximum when the pool is used up', () => {
    const taken = [view('a', 'taken'), view('b', 'taken')];
    expect(plan(singleSessionSpec(1, 3), taken).create).toBe(1);
    expect(plan(singleSessionSpec(1, 2), taken).create).toBe(0);
  });

  it('scales down idle instances, cancelling starting ones before withdrawing ready ones (newest first)', () => {
    const instances = [view('old', 'ready'), view('new', 'ready'), view('s', 'starting'), view('t', 'taken')];
    const result = plan(singleSessionSpec(1, 10), instances);
    expect(result.create).toBe(0);
    expect(result.cancel).toEqual([{ id: 's', reason: 'scaled down' }]);
    expect(result.withdraw).toEqual([{ id: 'new', immediate: false, reason: 'scaled down' }]);
  });

  it('is idempotent: once converged there is nothing to do', () => {
    expect(
      plan(singleSessionSpec(2, 4), [view('a', 'ready'), view('b', 'starting'), view('c', 'taken')]),
    ).toEqual({
      create: 0,
      cancel: [],
      withdraw: [],
      removeApp: false,
    });
  });

  it('creates nothing during failure backoff but still scales down', () => {
    expect(plan(singleSessionSpec(2, 4), [], { canCreate: false }).create).toBe(0);
    expect(plan(singleSessionSpec(0, 4), [view('a', 'ready')], { canCreate: false }).withdraw).toHaveLength(
      1,
    );
  });

  it('replaces outdated instances once the new pool is ready, and cancels outdated starts at once', () => {
    const old = [
      view('o1', 'ready', { templateHash: 'h0' }),
      view('o2', 'starting', { templateHash: 'h0' }),
      view('o3', 'taken', { templateHash: 'h0' }),
    ];
    const first = plan(singleSessionSpec(1, 10), old);
    expect(first.create).toBe(1);
    expect(first.cancel).toEqual([{ id: 'o2', reason: 'spec changed' }]);
    expect(first.withdraw).toEqual([]);
    const second = plan(singleSessionSpec(1, 10), [...old, view('n1', 'ready')]);
    expect(second.withdraw).toEqual([{ id: 'o1', immediate: false, reason: 'spec changed' }]);
  });

  it('makes room at the maximum by withdrawing outdated idle instances', () => {
    const old = [view('o1', 'ready', { templateHash: 'h0' }), view('o2', 'ready', { templateHash: 'h0' })];
    const result = plan(singleSessionSpec(2, 2), old);
    expect(result.create).toBe(0);
    expect(result.withdraw.map((entry) => entry.id).sort()).toEqual(['o1', 'o2']);
  });
});

describe('planApp: reusable', () => {
  it('keeps minReplicas without load and adds headroom with load, up to maxReplicas', () => {
    expect(desiredReusable(0, { capacity: 4, minReplicas: 2, maxReplicas: 5 })).toBe(2);
    expect(desiredReusable(1, { capacity: 4, minReplicas: 0, maxReplicas: 5 })).toBe(2);
    expect(desiredReusable(9, { capacity: 4, minReplicas: 1, maxReplicas: 5 })).toBe(4);
    expect(desiredReusable(100, { capacity: 4, minReplicas: 1, maxReplicas: 5 })).toBe(5);
    expect(plan(reusableSpec(4, 2, 5), []).create).toBe(2);
    expect(plan(reusableSpec(4, 1, 5), [view('a', 'ready', { sessions: 4 })]).create).toBe(1);
  });

  it('scales down only instances without sessions', () => {
    const instances = [view('busy', 'ready', { sessions: 1 }), view('idle', 'ready'), view('idle2', 'ready')];
    const result = plan(reusableSpec(10, 1, 5), instances);
    expect(result.withdraw.map((entry) => entry.id)).toEqual(['idle2']);
    expect(result.withdraw.every((entry) => !entry.immediate)).toBe(true);
  });
});

describe('planApp: deleted apps', () => {
  it('cancels starts, withdraws ready instances, leaves taken ones to finish their session', () => {
    const instances = [
      view('s', 'starting'),
      view('r', 'ready'),
      view('t', 'taken'),
      view('w', 'withdrawing'),
    ];
    const result = plan(singleSessionSpec(2, 4), instances, { deleting: true });
    expect(result).toEqual({
      create: 0,
      cancel: [{ id: 's', reason: 'app deleted' }],
      withdraw: [{ id: 'r', immediate: false, reason: 'app deleted' }],
      removeApp: false,
    });
    expect(
      planApp({ spec: undefined, templateHash: undefined, deleting: true, instances: [], canCreate: true })
        .removeApp,
    ).toBe(true);
  });
});
