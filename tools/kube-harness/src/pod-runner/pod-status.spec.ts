import { describe, expect, it } from '@jest/globals';
import { podStatus, type ObservedPod } from './pod-status';

const T0 = new Date('2026-11-30T10:00:00Z');
const T1 = new Date('2026-11-30T10:00:05Z');

const running: ObservedPod = {
  phase: 'Running',
  containerName: 'app',
  image: 'img',
  podIP: '10.215.0.2',
  startedAt: T0,
  ready: false,
  state: { running: { startedAt: T0 } },
  restartCount: 0,
};

function condition(status: ReturnType<typeof podStatus>, type: string) {
  return status.conditions?.find((entry) => entry.type === type);
}

describe('podStatus', () => {
  it('reports a running, not yet ready pod with its IP, as a kubelet does', () => {
    const status = podStatus(undefined, running, T0);
    expect(status).toMatchObject({
      phase: 'Running',
      podIP: '10.215.0.2',
      podIPs: [{ ip: '10.215.0.2' }],
      startTime: T0,
    });
    expect(status.conditions?.map((entry) => [entry.type, entry.status])).toEqual([
      ['PodScheduled', 'True'],
      ['Initialized', 'True'],
      ['ContainersReady', 'False'],
      ['Ready', 'False'],
    ]);
    expect(status.containerStatuses?.[0]).toMatchObject({
      name: 'app',
      ready: false,
      started: true,
      restartCount: 0,
    });
  });

  it('moves lastTransitionTime only for conditions whose value changed', () => {
    const before = podStatus(undefined, running, T0);
    const after = podStatus(before, { ...running, ready: true }, T1);
    expect(condition(after, 'Ready')).toMatchObject({ status: 'True', lastTransitionTime: T1 });
    expect(condition(after, 'Initialized')).toMatchObject({ status: 'True', lastTransitionTime: T0 });
    expect(after.startTime).toBe(T0);
  });

  it('reports a failed pod with its reason and no IP', () => {
    const failed = podStatus(
      undefined,
      {
        ...running,
        phase: 'Failed',
        podIP: undefined,
        startedAt: undefined,
        state: { terminated: { exitCode: 128, reason: 'Unsupported' } },
        reason: 'Unsupported',
        message: 'exec probes',
      },
      T0,
    );
    expect(failed).toMatchObject({ phase: 'Failed', reason: 'Unsupported', message: 'exec probes' });
    expect(failed.podIP).toBeUndefined();
    expect(condition(failed, 'Ready')?.status).toBe('False');
  });
});
