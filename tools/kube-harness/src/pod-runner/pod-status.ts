import type { V1ContainerState, V1PodCondition, V1PodStatus } from '@kubernetes/client-node';

/** What the runner knows about one pod's single container. */
export interface ObservedPod {
  phase: 'Pending' | 'Running' | 'Failed';
  containerName: string;
  image: string;
  /** The instance's address: the pod IP. */
  podIP?: string;
  startedAt?: Date;
  ready: boolean;
  state: V1ContainerState;
  restartCount: number;
  reason?: string;
  message?: string;
}

/** The address kubelets report as the node's; the runner's "node" is this host. */
export const RUNNER_HOST_IP = '127.0.0.1';

const CONDITION_TYPES = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'] as const;

function conditionValue(type: (typeof CONDITION_TYPES)[number], observed: ObservedPod): boolean {
  if (type === 'PodScheduled') return true;
  if (type === 'Initialized') return observed.phase !== 'Pending' || observed.startedAt !== undefined;
  return observed.ready;
}

/**
 * The pod status a kubelet would report for what the runner observed. A condition keeps its
 * `lastTransitionTime` while its value does not change, so readers can tell when readiness flipped.
 */
export function podStatus(current: V1PodStatus | undefined, observed: ObservedPod, now: Date): V1PodStatus {
  const conditions: V1PodCondition[] = CONDITION_TYPES.map((type) => {
    const status = conditionValue(type, observed) ? 'True' : 'False';
    const previous = current?.conditions?.find((condition) => condition.type === type);
    const lastTransitionTime =
      previous?.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : now;
    return { type, status, lastTransitionTime };
  });
  const podIP = observed.podIP;
  return {
    phase: observed.phase,
    conditions,
    hostIP: RUNNER_HOST_IP,
    hostIPs: [{ ip: RUNNER_HOST_IP }],
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    ...(observed.startedAt ? { startTime: current?.startTime ?? observed.startedAt } : {}),
    ...(observed.reason ? { reason: observed.reason } : {}),
    ...(observed.message ? { message: observed.message } : {}),
    containerStatuses: [
      {
        name: observed.containerName,
        image: observed.image,
        imageID: '',
        ready: observed.ready,
        started: observed.state.running !== undefined,
        restartCount: observed.restartCount,
        state: observed.state,
      },
    ],
  };
}
