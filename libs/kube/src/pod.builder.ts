import type { V1Container, V1Pod, V1Probe, V1SecurityContext } from '@kubernetes/client-node';
import type { AppSpec, HealthCheck } from '@sandbox/protocol';
import { KUBE_LABELS, MANAGED_BY, instancePodName } from './labels';

/** Input of {@link buildInstancePod}. */
export interface InstancePodInput {
  namespace: string;
  app: string;
  instanceId: string;
  /** Hash of the spec fields the instance is built from (a label, so a restarted manager can compare). */
  templateHash: string;
  spec: AppSpec;
  /** @defaultValue 'gvisor' */
  runtimeClassName?: string;
  /** Public resolvers for egress `internet`; without them the pod keeps the node's resolver. @defaultValue [] */
  dnsServers?: readonly string[];
  /** @defaultValue 10 */
  terminationGracePeriodSeconds?: number;
  /** uid and gid the app runs as. @defaultValue 65534 (nobody) */
  runAsUser?: number;
  /** Size of the memory-backed `/tmp` (the root filesystem is read-only). @defaultValue '64Mi' */
  tmpSize?: string;
}

/**
 * The kubelet counts 200-399 as a passing HTTP probe; an app whose health endpoint answers something
 * else when ready falls back to a TCP probe on the app port.
 */
export function buildReadinessProbe(check: HealthCheck, port: number): V1Probe {
  const timing = { periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1 };
  if (check.type === 'http' && check.expectedStatus >= 200 && check.expectedStatus < 400) {
    return { ...timing, httpGet: { path: check.path, port, scheme: 'HTTP' } };
  }
  return { ...timing, tcpSocket: { port } };
}

function restrictedContainerSecurity(uid: number): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    privileged: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: uid,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

function appContainer(input: InstancePodInput, uid: number): V1Container {
  const { spec } = input;
  const limits = { cpu: spec.resources.cpu, memory: spec.resources.memory };
  const container: V1Container = {
    name: 'app',
    image: spec.image,
    imagePullPolicy: 'IfNotPresent',
    env: Object.entries(spec.env).map(([name, value]) => ({ name, value })),
    ports: [{ name: 'app', containerPort: spec.port, protocol: 'TCP' }],
    resources: { limits, requests: limits },
    securityContext: restrictedContainerSecurity(uid),
    readinessProbe: buildReadinessProbe(spec.healthCheck, spec.port),
    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
  // `args` replaces the image's CMD and keeps its ENTRYPOINT, like the local driver's arguments.
  if (spec.args.length > 0) container.args = [...spec.args];
  return container;
}

/**
 * One instance's Pod: gVisor runtime class, no service-account token, no service links (their
 * environment variables would tell the app where cluster services are), a restricted security context,
 * equal requests and limits, the readiness probe, labels for app, instance and kind, and
 * `restartPolicy: Never` (an instance that exits is replaced, never reused).
 */
export function buildInstancePod(input: InstancePodInput): V1Pod {
  const uid = input.runAsUser ?? 65_534;
  const dnsServers = input.spec.egress === 'internet' ? (input.dnsServers ?? []) : [];
  const pod: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: instancePodName(input.app, input.instanceId),
      namespace: input.namespace,
      labels: {
        [KUBE_LABELS.managedBy]: MANAGED_BY,
        [KUBE_LABELS.app]: input.app,
        [KUBE_LABELS.instance]: input.instanceId,
        [KUBE_LABELS.kind]: input.spec.instances.kind,
        [KUBE_LABELS.template]: input.templateHash,
      },
    },
    spec: {
      runtimeClassName: input.runtimeClassName ?? 'gvisor',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: input.terminationGracePeriodSeconds ?? 10,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: uid,
        runAsGroup: uid,
        fsGroup: uid,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [appContainer(input, uid)],
      volumes: [{ name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: input.tmpSize ?? '64Mi' } }],
    },
  };
  if (dnsServers.length > 0 && pod.spec) {
    pod.spec.dnsPolicy = 'None';
    pod.spec.dnsConfig = { nameservers: [...dnsServers] };
  }
  return pod;
}
