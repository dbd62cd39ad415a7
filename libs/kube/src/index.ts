export {
  appNetworkPolicyName,
  instancePodName,
  KUBE_LABELS,
  MANAGED_BY,
  MANAGED_POD_SELECTOR,
} from './labels';
export { nodeAddressCidrs, type NodeAddresses } from './network-ranges';
export { buildInstancePod, type InstancePodInput } from './pod.builder';
export {
  buildAppNetworkPolicy,
  type AppNetworkPolicyInput,
  type OrchestratorSelector,
} from './network-policy.builder';
export { networkPolicyApplyBody, networkPolicyDrifted } from './network-policy-drift';
export { isPodReady, podIdentity, podInstanceUrl, podRuntimeState, type PodRuntimeState } from './pod-status';
export {
  createResilientInformer,
  type InformerSource,
  type ResilientInformer,
  type ResilientInformerOptions,
} from './resilient-informer';
export { type KubeApi, type KubeApiTarget, type KubeClientApis } from './kube-api';
export { connectKube, type KubeConnection } from './kube-connect';
export { KubeConflictError, KubeForbiddenError, KubeInvalidError, type KubeAction } from './kube-errors';
export { createWorkQueue, type WorkQueue, type WorkQueueOptions } from './work-queue';
