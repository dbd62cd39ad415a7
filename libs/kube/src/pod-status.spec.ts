import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { KUBE_LABELS } from './labels';
import { isPodReady, podIdentity, podInstanceUrl, podRuntimeState } from './pod-status';

const running = (extra: Partial<V1Pod['status']> = {}): V1Pod => ({
  metadata: {
    name: 'demo-x',
    labels: { [KUBE_LABELS.app]: 'demo', [KUBE_LABELS.instance]: 'x', [KUBE_LABELS.template]: 't' },
  },
  status: {
    phase: 'Running',
    podIP: '10.42.0.7',
    containerStatuses: [
      { name: 'app', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
    ],
    conditions: [{ type: 'Ready', status: 'True' }],
    ...extra,
  },
});

describe('pod status', () => {
  it('classifies pods', () => {
    expect(podRuntimeState(running())).toBe('running');
    expect(podRuntimeState({ status: { phase: 'Pending' } })).toBe('starting');
    expect(podRuntimeState({ status: { phase: 'Failed' } })).toBe('failed');
    expect(podRuntimeState({ status: { phase: 'Succeeded' } })).toBe('failed');
    expect(podRuntimeState({ ...running(), metadata: { deletionTimestamp: new Date() } })).toBe('failed');
    const exited = running({
      containerStatuses: [
        {
          name: 'app',
          image: 'i',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 1 } },
        },
      ],
    });
    expect(podRuntimeState(exited)).toBe('failed');
  });

  it('reads readiness, URL and identity', () => {
    expect(isPodReady(running())).toBe(true);
    expect(isPodReady(running({ conditions: [{ type: 'Ready', status: 'False' }] }))).toBe(false);
    expect(podInstanceUrl(running(), 8080)).toBe('http://10.42.0.7:8080');
    expect(podInstanceUrl(running({ podIP: 'fd00::7' }), 8080)).toBe('http://[fd00::7]:8080');
    expect(podInstanceUrl({ status: {} }, 8080)).toBeUndefined();
    expect(podIdentity(running())).toEqual({ app: 'demo', instanceId: 'x', templateHash: 't' });
  });
});
