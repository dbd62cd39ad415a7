import { createHash } from 'node:crypto';
import type { V1Container, V1Pod, V1Probe } from '@kubernetes/client-node';
import type { InstanceSpecInput } from '@sandbox/sandbox-local';
import { cpuCores, memoryMiB } from './quantity';

/** How the runner checks readiness, taken from the container's `readinessProbe`. */
export interface ReadinessPlan {
  check: { type: 'http'; path: string } | { type: 'tcp' };
  port: number;
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
}

/** What the runner starts for one pod. */
export interface PodPlan {
  containerName: string;
  spec: InstanceSpecInput & { instanceId: string };
  /** Absent: the pod is ready as soon as its container runs, as with a kubelet. */
  readiness?: ReadinessPlan;
}

/** The pod uses something this runner does not emulate; the message says what. */
export class UnsupportedPodError extends Error {
  override readonly name = 'UnsupportedPodError';
}

/** Local-driver instance id for a pod: ten base-36 characters of a digest of its uid (stable across restarts). */
export function instanceIdForPod(uid: string): string {
  const digest = createHash('sha256').update(uid).digest();
  return [...digest.subarray(0, 10)].map((byte) => (byte % 36).toString(36)).join('');
}

function containerPort(container: V1Container, port: number | string | undefined): number {
  if (typeof port === 'number') return port;
  const named = container.ports?.find((candidate) => candidate.name === port);
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  if (!named) throw new UnsupportedPodError(`probe port ${String(port)} names no container port`);
  return named.containerPort;
}

function readinessPlan(container: V1Container, probe: V1Probe | undefined): ReadinessPlan | undefined {
  if (!probe) return undefined;
  const timing = {
    initialDelayMs: (probe.initialDelaySeconds ?? 0) * 1_000,
    periodMs: (probe.periodSeconds ?? 10) * 1_000,
    timeoutMs: (probe.timeoutSeconds ?? 1) * 1_000,
    successThreshold: probe.successThreshold ?? 1,
    failureThreshold: probe.failureThreshold ?? 3,
  };
  if (probe.httpGet) {
    if (probe.httpGet.scheme && probe.httpGet.scheme !== 'HTTP') {
      throw new UnsupportedPodError(`probe scheme ${probe.httpGet.scheme} is not supported`);
    }
    const check = { type: 'http' as const, path: probe.httpGet.path ?? '/' };
    return { check, port: containerPort(container, probe.httpGet.port), ...timing };
  }
  if (probe.tcpSocket) {
    return { check: { type: 'tcp' }, port: containerPort(container, probe.tcpSocket.port), ...timing };
  }
  throw new UnsupportedPodError('only httpGet and tcpSocket readiness probes are supported');
}

function environment(container: V1Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    if (variable.valueFrom) throw new UnsupportedPodError(`env ${variable.name} uses valueFrom`);
    env[variable.name] = variable.value ?? '';
  }
  return env;
}

function limits(container: V1Container): { cpus: number; memoryMb: number } {
  const cpu = container.resources?.limits?.['cpu'];
  const memory = container.resources?.limits?.['memory'];
  if (!cpu || !memory) throw new UnsupportedPodError('the container needs cpu and memory limits');
  return { cpus: cpuCores(cpu), memoryMb: Math.max(32, memoryMiB(memory)) };
}

/**
 * Maps a pod to a local-driver instance: one container, its first container port, plain env values,
 * its limits, `command` + `args` as the new CMD (our images have no ENTRYPOINT), no egress. Labels
 * carry the pod's identity so leftovers can be traced to their pod.
 */
export function planPod(pod: V1Pod): PodPlan {
  const containers = pod.spec?.containers ?? [];
  const [container] = containers;
  if (!container || containers.length !== 1 || (pod.spec?.initContainers?.length ?? 0) > 0) {
    throw new UnsupportedPodError('exactly one container and no init containers are supported');
  }
  if (!container.image) throw new UnsupportedPodError('the container has no image');
  const port = container.ports?.[0]?.containerPort;
  if (port === undefined) throw new UnsupportedPodError('the container declares no port');
  const uid = pod.metadata?.uid ?? '';
  const command = [...(container.command ?? []), ...(container.args ?? [])];
  const plan: PodPlan = {
    containerName: container.name,
    spec: {
      instanceId: instanceIdForPod(uid),
      image: container.image,
      port,
      ...(command.length > 0 ? { args: command } : {}),
      env: environment(container),
      resources: limits(container),
      egress: 'none',
      labels: {
        'pod-namespace': pod.metadata?.namespace ?? '',
        'pod-name': pod.metadata?.name ?? '',
        'pod-uid': uid,
      },
    },
  };
  const readiness = readinessPlan(container, container.readinessProbe);
  return readiness ? { ...plan, readiness } : plan;
}
