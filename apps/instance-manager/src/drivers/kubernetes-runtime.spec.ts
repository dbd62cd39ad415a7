import { describe, expect, it } from '@jest/globals';
import {
  KUBE_LABELS,
  KubeConflictError,
  KubeForbiddenError,
  KubeInvalidError,
  MANAGED_BY,
} from '@sandbox/kube';
import { waitFor } from '@sandbox/testing';
import { singleSessionSpec } from '../domain/spec-fixtures.fixture';
import { fakeCluster } from './kubernetes-runtime.fixture';
import { parsePodLog } from './kubernetes-runtime';
import { InstanceNotReadyError, InstanceRefusedError } from './runtime-driver';
import type { InstanceRef } from './runtime-driver';

const spec = singleSessionSpec(1, 2);
const request = { instanceId: 'abcde12345', app: 'demo', templateHash: 'h1', spec };
const timing = { timeoutMs: 5_000, intervalMs: 200 };

describe('the kubernetes runtime', () => {
  it('creates one gVisor pod per instance and one NetworkPolicy per app (once per port and egress)', async () => {
    const { runtime, pods, policies } = fakeCluster();
    await runtime.ensureApp('demo', spec);
    await runtime.ensureApp('demo', spec);
    expect(policies).toHaveLength(1);
    expect(policies[0]?.spec?.ingress?.[0]?.ports).toEqual([{ protocol: 'TCP', port: 8080 }]);
    await runtime.ensureApp('demo', singleSessionSpec(1, 2, { egress: 'internet' }));
    expect(policies).toHaveLength(2);
    await runtime.start(request);
    expect(pods[0]?.metadata?.name).toBe('demo-abcde12345');
    expect(pods[0]?.spec).toMatchObject({ runtimeClassName: 'gvisor', automountServiceAccountToken: false });
  });

  it("re-applies an app's NetworkPolicy that was deleted or altered behind its back", async () => {
    const { runtime, policies, inCluster, fire } = fakeCluster();
    await runtime.ensureApp('demo', spec);
    const [applied] = policies;
    if (!applied) throw new Error('no policy applied');
    const name = applied.metadata?.name ?? '';
    inCluster.delete(name);
    fire('delete', applied);
    await waitFor(async () => policies.length === 2, { description: 're-created', timeoutMs: 2_000 });
    const opened = structuredClone(applied);
    if (opened.spec) opened.spec.egress = [{}];
    inCluster.set(name, opened);
    fire('update', opened);
    await waitFor(async () => policies.length === 3, { description: 'restored', timeoutMs: 2_000 });
    expect(inCluster.get(name)?.spec).toEqual(applied.spec);
    // A label someone added is not drift; a removed app's policy is left alone.
    inCluster.set(name, { ...applied, metadata: { ...applied.metadata, labels: { extra: 'x' } } });
    fire('update', inCluster.get(name) ?? applied);
    await runtime.removeApp('demo');
    fire('delete', applied);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(policies).toHaveLength(3);
  });

  it('keeps every node address out of app egress, also of nodes that join later', async () => {
    const { runtime, policies, addNode } = fakeCluster();
    addNode('198.51.100.7');
    await runtime.ensureApp('web', singleSessionSpec(1, 2, { egress: 'internet' }));
    const excepts = (index: number) => policies[index]?.spec?.egress?.[0]?.to?.[0]?.ipBlock?.except ?? [];
    expect(excepts(0)).toEqual(expect.arrayContaining(['198.51.100.7/32', '203.0.113.9/32']));
    addNode('192.0.2.44');
    await waitFor(async () => policies.length === 2, { description: 'policy updated', timeoutMs: 2_000 });
    expect(excepts(1)).toEqual(expect.arrayContaining(['198.51.100.7/32', '192.0.2.44/32']));
  });

  it('is ready when the kubelet says so, at the pod IP and app port', async () => {
    const { runtime, pods, becomeReady } = fakeCluster();
    await runtime.start(request);
    const waiting = runtime.waitForReady({ instanceId: 'abcde12345' }, spec, timing);
    becomeReady(pods[0]);
    await expect(waiting).resolves.toEqual({ url: 'http://10.42.0.9:8080' });
  });

  it('fails the wait when the pod ends or the deadline passes', async () => {
    const ended = fakeCluster();
    await ended.runtime.start(request);
    const pod = ended.pods[0];
    if (pod) pod.status = { phase: 'Failed' };
    await expect(ended.runtime.waitForReady({ instanceId: 'abcde12345' }, spec, timing)).rejects.toEqual(
      new InstanceNotReadyError('exited'),
    );
    const slow = fakeCluster();
    await slow.runtime.start(request);
    await expect(slow.runtime.waitForReady({ instanceId: 'abcde12345' }, spec, timing)).rejects.toEqual(
      new InstanceNotReadyError('timeout'),
    );
  });

  it('lists managed pods with their state, and stops them by name', async () => {
    const { runtime, pods, calls, becomeReady } = fakeCluster();
    await runtime.start(request);
    pods.push({ metadata: { name: 'other', labels: { app: 'x' } } });
    expect(await runtime.list()).toEqual([{ instanceId: 'abcde12345', app: 'demo', status: 'starting' }]);
    becomeReady(pods[0]);
    expect(await runtime.list()).toEqual([
      { instanceId: 'abcde12345', app: 'demo', status: 'running', url: 'http://10.42.0.9:8080' },
    ]);
    expect(pods[0]?.metadata?.labels?.[KUBE_LABELS.managedBy]).toBe(MANAGED_BY);
    await runtime.stop({ instanceId: 'abcde12345' });
    await runtime.stop({ instanceId: 'zzzzz99999' });
    await runtime.removeApp('demo');
    expect(calls).toEqual([
      'create demo-abcde12345',
      'delete demo-abcde12345',
      'delete policy sandbox-app-demo',
    ]);
  });

  it('reads the app container log', async () => {
    const { runtime, calls } = fakeCluster();
    expect(await runtime.logs({ instanceId: 'abcde12345', app: 'demo' }, 50)).toEqual([
      { time: '2026-01-01T00:00:00.000000001Z', stream: 'stdout', text: 'listening' },
      { time: '2026-01-01T00:00:01Z', stream: 'stdout', text: 'second line' },
    ]);
    expect(calls).toEqual(['logs demo-abcde12345 50']);
    expect(await runtime.logs({ instanceId: 'abcde12345' }, 50)).toBeUndefined();
    expect(parsePodLog('')).toEqual([]);
  });

  it('tells its watcher which instance changed on every pod event, a deletion at once', async () => {
    const { runtime, pods, firePod, becomeReady } = fakeCluster();
    const changes: InstanceRef[] = [];
    runtime.watch?.((instance) => changes.push(instance));
    await runtime.start(request);
    becomeReady(pods[0]);
    const [pod] = pods.splice(0, 1);
    if (pod) firePod('delete', pod);
    const ref = { instanceId: 'abcde12345', app: 'demo' };
    expect(changes).toEqual([ref, ref, ref]);
    expect(await runtime.list()).toEqual([]);
  });

  it('ends a wait for readiness when the pod is deleted before it is ready', async () => {
    const { runtime, pods, firePod } = fakeCluster();
    await runtime.start(request);
    const waiting = runtime.waitForReady({ instanceId: 'abcde12345', app: 'demo' }, spec, timing);
    const [pod] = pods.splice(0, 1);
    if (pod) firePod('delete', pod);
    await expect(waiting).rejects.toEqual(new InstanceNotReadyError('exited'));
  });

  it('fails a start the API server refuses with its reason (422) or a clear permission error (403)', async () => {
    const action = { verb: 'apply', kind: 'pod', name: 'demo-abcde12345' } as const;
    const invalid = new KubeInvalidError(action, 'spec.containers[0].image: Required value', undefined);
    await expect(fakeCluster({ applyPod: invalid }).runtime.start(request)).rejects.toEqual(
      new InstanceRefusedError('pod rejected: spec.containers[0].image: Required value'),
    );
    const forbidden = new KubeForbiddenError(action, undefined);
    await expect(fakeCluster({ applyPod: forbidden }).runtime.start(request)).rejects.toEqual(
      new InstanceRefusedError('the service account may not apply pod demo-abcde12345 (403 Forbidden)'),
    );
    const down = new Error('connect ECONNREFUSED');
    await expect(fakeCluster({ applyPod: down }).runtime.start(request)).rejects.toBe(down);
  });

  it('retries a policy repair that hit a conflict (409) until it lands', async () => {
    const conflict = new KubeConflictError({ verb: 'apply', kind: 'NetworkPolicy', name: 'x' }, undefined);
    const failures = { applyNetworkPolicy: [] as unknown[] };
    const { runtime, policies, inCluster, fire } = fakeCluster(failures);
    await runtime.ensureApp('demo', spec);
    const [applied] = policies;
    if (!applied) throw new Error('no policy applied');
    failures.applyNetworkPolicy.push(conflict);
    inCluster.delete(applied.metadata?.name ?? '');
    fire('delete', applied);
    await waitFor(async () => policies.length === 2, {
      description: 'repaired after a retry',
      timeoutMs: 5_000,
    });
    expect(failures.applyNetworkPolicy).toEqual([]);
    await runtime.close();
  });
});
