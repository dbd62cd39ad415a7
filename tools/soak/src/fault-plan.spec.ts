import { describe, expect, it } from '@jest/globals';
import { FAULT_KINDS, planFaults, type FaultPlanOptions } from './fault-plan';
import { createPrng } from './prng';

const options: FaultPlanOptions = {
  durationMs: 30 * 60_000,
  members: ['redis', 'node-sim', 'adapter', 'instance-manager'],
  apps: ['echo', 'pool'],
  leaseTtlMs: 15_000,
};

describe('planFaults', () => {
  it('plans the same faults for the same seed, and others for another seed', () => {
    expect(planFaults(createPrng(9), options)).toEqual(planFaults(createPrng(9), options));
    expect(planFaults(createPrng(9), options)).not.toEqual(planFaults(createPrng(10), options));
  });

  it('keeps every fault inside the run, in time order, on a known target', () => {
    const plan = planFaults(createPrng(1), options);
    expect(plan.length).toBeGreaterThan(10);
    for (const [index, fault] of plan.entries()) {
      expect(fault.atMs).toBeGreaterThan(0);
      expect(fault.atMs).toBeLessThan(options.durationMs);
      if (index > 0) expect(fault.atMs).toBeGreaterThanOrEqual((plan[index - 1] as typeof fault).atMs);
      const targets = { drain: ['node'], 'kill-app-process': options.apps }[fault.kind as string];
      expect(targets ?? options.members).toContain(fault.target);
    }
  });

  it('draws every kind over a long run; SIGSTOPs outlast the lease TTL', () => {
    const plan = planFaults(createPrng(3), { ...options, durationMs: 3 * 3_600_000 });
    expect(new Set(plan.map((fault) => fault.kind))).toEqual(new Set(FAULT_KINDS));
    for (const stop of plan.filter((fault) => fault.kind === 'stop-member')) {
      expect(stop.durationMs).toBeGreaterThanOrEqual(17_000);
      expect(stop.durationMs).toBeLessThanOrEqual(25_000);
    }
  });

  it('spaces member faults so that one ends before the next starts, and drains a few minutes apart', () => {
    const plan = planFaults(createPrng(5), options);
    const members = plan.filter((fault) => fault.kind !== 'drain');
    for (let i = 1; i < members.length; i += 1) {
      const before = members[i - 1] as (typeof members)[number];
      expect((members[i] as typeof before).atMs).toBeGreaterThanOrEqual(
        before.atMs + before.durationMs + 20_000,
      );
    }
    const drains = plan.filter((fault) => fault.kind === 'drain').map((fault) => fault.atMs);
    expect(drains.length).toBeGreaterThanOrEqual(8);
    for (let i = 1; i < drains.length; i += 1)
      expect((drains[i] as number) - (drains[i - 1] as number)).toBeGreaterThanOrEqual(180_000 * 0.6);
  });

  it('leaves out app-process kills when no app is named, and refuses an empty member list', () => {
    const plan = planFaults(createPrng(2), { ...options, apps: [] });
    expect(plan.some((fault) => fault.kind === 'kill-app-process')).toBe(false);
    expect(() => planFaults(createPrng(2), { ...options, members: [] })).toThrow('no members');
  });
});
