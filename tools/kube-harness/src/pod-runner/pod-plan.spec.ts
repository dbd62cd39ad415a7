import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { INSTANCE_ID_PATTERN } from '@sandbox/protocol';
import { instanceIdForPod, planPod } from './pod-plan';

function pod(container: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): V1Pod {
  return {
    metadata: { name: 'web-1', namespace: 'apps', uid: '0b5e3d5c-8d2f-4d6e-9a57-2d0c2b1f6f10' },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'localhost/sandbox-example-app:abc',
          ports: [{ name: 'http', containerPort: 8080 }],
          resources: { limits: { cpu: '500m', memory: '256Mi' } },
          ...container,
        },
      ],
      ...spec,
    },
  };
}

describe('planPod', () => {
  it('maps the container to a local-driver instance with the pod identity as labels', () => {
    const plan = planPod(pod({ env: [{ name: 'GREETING', value: 'hi' }], args: ['--fast'] }));
    expect(plan.spec).toEqual({
      instanceId: instanceIdForPod('0b5e3d5c-8d2f-4d6e-9a57-2d0c2b1f6f10'),
      image: 'localhost/sandbox-example-app:abc',
      port: 8080,
      args: ['--fast'],
      env: { GREETING: 'hi' },
      resources: { cpus: 0.5, memoryMb: 256 },
      egress: 'none',
      labels: {
        'pod-namespace': 'apps',
        'pod-name': 'web-1',
        'pod-uid': '0b5e3d5c-8d2f-4d6e-9a57-2d0c2b1f6f10',
      },
    });
    expect(plan.readiness).toBeUndefined();
  });

  it('derives a valid, stable instance id per pod uid', () => {
    expect(instanceIdForPod('a')).toMatch(INSTANCE_ID_PATTERN);
    expect(instanceIdForPod('a')).toBe(instanceIdForPod('a'));
    expect(instanceIdForPod('a')).not.toBe(instanceIdForPod('b'));
  });

  it('takes the HTTP readiness probe with a named port and the kubelet defaults', () => {
    const plan = planPod(
      pod({ readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1 } }),
    );
    expect(plan.readiness).toEqual({
      check: { type: 'http', path: '/healthz' },
      port: 8080,
      initialDelayMs: 0,
      periodMs: 1_000,
      timeoutMs: 1_000,
      successThreshold: 1,
      failureThreshold: 3,
    });
  });

  it('takes a TCP probe with a numeric port', () => {
    expect(planPod(pod({ readinessProbe: { tcpSocket: { port: 9000 } } })).readiness).toMatchObject({
      check: { type: 'tcp' },
      port: 9000,
    });
  });

  it.each([
    ['an exec probe', pod({ readinessProbe: { exec: { command: ['true'] } } }), 'httpGet and tcpSocket'],
    [
      'a probe port that names nothing',
      pod({ readinessProbe: { httpGet: { port: 'admin' } } }),
      'names no container port',
    ],
    [
      'env from a Secret',
      pod({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }),
      'valueFrom',
    ],
    ['no limits', pod({ resources: {} }), 'cpu and memory limits'],
    ['no port', pod({ ports: [] }), 'declares no port'],
    [
      'an init container',
      pod({}, { initContainers: [{ name: 'init', image: 'x' }] }),
      'exactly one container',
    ],
  ])('refuses a pod with %s', (_shape, input, message) => {
    expect(() => planPod(input)).toThrow(message);
  });
});
