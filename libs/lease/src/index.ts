export {
  checkLeaseTimings,
  DEFAULT_LEASE_TIMINGS,
  defaultHolderId,
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
export { LeaseConfigError, NotLeaseHolderError, StaleLeaseError } from './lease-errors';
export { leaseKeys, withLeaseCommands, type LeaseKeys, type LeaseRedis } from './lease-scripts';
export { fencedExec, readFenceLog, type FenceLogEntry, type FencedCommand } from './fenced-exec';
export {
  checkpointKeys,
  fencedCheckpoint,
  guardMethods,
  parseLeaseActs,
  readLeaseActs,
  requireHolding,
  type LeaseAct,
} from './lease-guard';
export { coalescedCheckpoint, type CoalescedCheckpointOptions } from './coalesced-checkpoint';
