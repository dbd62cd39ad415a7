import type { V1Pod } from '@kubernetes/client-node';
import { KUBE_LABELS } from './labels';

/** Where an instance pod is in its life, as far as the manager cares. */
export type PodRuntimeState = 'starting' | 'running' | 'failed';

/**
 * `failed` once the pod is being deleted, has ended (any phase after Running: pods never restart) or
 * its app container terminated; `running` while Running with the container up; else `starting`.
 */
export function podRuntimeState(pod: V1Pod): PodRuntimeState {
  if (pod.metadata?.deletionTimestamp) return 'failed';
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return 'failed';
  const app = pod.status?.containerStatuses?.find((status) => status.name === 'app');
  if (app?.state?.terminated) return 'failed';
  if (phase === 'Running' && app?.state?.running) return 'running';
  return 'starting';
}

/** The kubelet's Ready condition: the readiness probe passes. */
export function isPodReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** `http://<pod IP>:<port>` once the pod has an address (IPv6 in brackets). */
export function podInstanceUrl(pod: V1Pod, port: number): string | undefined {
  const ip = pod.status?.podIP;
  if (!ip) return undefined;
  return ip.includes(':') ? `http://[${ip}]:${port}` : `http://${ip}:${port}`;
}

/** The app, instance id and template hash a pod's labels carry. */
export function podIdentity(pod: V1Pod): { app?: string; instanceId?: string; templateHash?: string } {
  const labels = pod.metadata?.labels ?? {};
  return {
    app: labels[KUBE_LABELS.app],
    instanceId: labels[KUBE_LABELS.instance],
    templateHash: labels[KUBE_LABELS.template],
  };
}
