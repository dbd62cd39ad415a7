export * from './build/kube-versions';
export * from './build/ensure-kube-binaries';
export * from './build/go-toolchain';
export { ADMIN_USER, type HarnessPki } from './pki/pki';
export { ADMISSION_PLUGINS, SERVICE_ACCOUNT_ISSUER } from './control-plane/apiserver';
export * from './control-plane/kube-harness';
export * from './control-plane/kubeconfig';
export * from './control-plane/service-accounts';
export * from './control-plane/test-namespaces';
export * from './pod-runner/pod-runner';
export {
  planPod,
  instanceIdForPod,
  UnsupportedPodError,
  type PodPlan,
  type ReadinessPlan,
} from './pod-runner/pod-plan';
export * from './manifests/manifests';
export { startDeployedHarness, DEPLOY, type DeployedHarness } from './test-support/deployed-harness.fixture';
export { startFreezableProxy, type FreezableProxy } from './test-support/freezable-proxy.fixture';
export * from './manifests/workloads';
export * from './local-node/local-node';
export { GVISOR_HANDLER, GVISOR_RUNTIME_TYPE, type NodeLayout } from './local-node/node-config';
export * from './local-node/ensure-node-binaries';
export * from './deploy/rbac-matrix';
export {
  startLocalCluster,
  type LocalCluster,
  type LocalClusterOptions,
} from './local-cluster/local-cluster';
export { cleanupLocalCluster } from './local-cluster/cleanup-cluster';
export { ensureClusterBinaries, type ClusterBinaries } from './local-cluster/ensure-cluster-binaries';
export {
  CLUSTER_DIR,
  CLUSTER_NETWORK,
  CLUSTER_NODE_NAME,
  RUNSC_HANDLER,
} from './local-cluster/cluster-layout';
export { findPromtool } from './test-support/promtool.fixture';
export { requireKubectl } from './test-support/kubectl.fixture';
export {
  alertQueries,
  dashboardQueries,
  exposedMetricNames,
  queriesReadingMissingMetrics,
} from './deploy/monitoring-queries';
