export {
  DEFAULT_LEASE_TIMINGS,
  leaseEnvFields,
  leaseSettings,
  type LeaseEnv,
  type LeaseTimings,
} from './lease-config';
export {
  createLeaseElector,
  type LeaseElector,
  type LeaseElectorOptions,
  type LeaseHolding,
  type LeaseState,
} from './lease-elector';
export { type LeaseKeys, type LeaseRedis } from './lease-scripts';
export { fencedExec, type FenceLogEntry, type FencedCommand } from './fenced-exec';
export { fencedCheckpoint, guardMethods } from './lease-guard';
export { coalescedCheckpoint, type CoalescedCheckpointOptions } from './coalesced-checkpoint';
