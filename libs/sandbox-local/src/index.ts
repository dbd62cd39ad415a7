export { runCommand, type CommandOptions, type CommandResult, type CommandRunner } from './command-runner';
export type { LogLine } from './container-logs';
export type { DiscoveredInstance } from './discovery';
export type { EgressPolicy } from './firewall-rules';
export type { HealthCheck, InstanceSpec, InstanceSpecInput } from './instance-spec.schema';
export type { IsolationDrift } from './integrity-guard';
export { hostResources, InstanceCapacityError } from './host-capacity';
export type { Resources } from './host-capacity';
export {
  createLocalDriver,
  type IsolationWatchOptions,
  type LocalDriverOptions,
  type SandboxDriver,
  type StartedInstance,
} from './local-driver';
export {
  NotReadyError,
  waitForReady,
  type ProbeTarget,
  type ReadinessOptions,
  type ReadyResult,
} from './readiness';
export {
  ensureNodeAppImage,
  exportNodeAppImage,
  NODE_IMAGE_ENV,
  type NodeAppImage,
  type NodeAppImageOptions,
  type PreparedNodeAppImage,
} from './images/node-app-image';
export {
  ensureRunscBuild,
  gvisorVersion,
  RUNSC_MODULE_DIR,
  type RunscBuild,
  type RunscBuildOptions,
} from './runsc/runsc-build';
export { chooseRuntime, type RuntimeCandidate } from './runsc/runtime-choice';
export { findCachedRunsc } from './runsc/runsc-cache';
export { assertTrustedBinary } from './runsc/trusted-binary';
export {
  ensureEvalResponderImage,
  EVAL_RESPONDER,
  EXAMPLE_APP,
  type RepositoryApp,
} from './images/repository-apps';
export type { ImageArchive, ImageRuntimeConfig } from './images/image-archive';
export { directoryAssets, IMAGE_APP_PATH, IMAGE_NODE_PATH } from './images/rootfs-layout';
export type { RootfsDir, RootfsFile } from './images/rootfs-layout';
