export { startRedis, type RedisFixture, type StartRedisOptions } from './redis-server';
export { waitFor, type WaitForOptions } from './wait-for';
export { ManualClock } from './manual-clock';
export { uniquePrefix } from './unique-prefix';
export { findFreePort } from './free-port';
export { createMemoryLogger, type MemoryLogger } from './memory-logger';
export { ensureSdkVenv, findPython, SDK_PACKAGE } from './python-sdk-venv';
export { startTsProcess, waitForHttpReady, type TsProcessOptions } from './ts-process';
export { leaseSpecRounds, parentEnv, requireAllTests } from './config';
export { exampleAppSpec } from './example-app-spec';
export { buyPaidSession, type PaidSession } from './paid-session';
export { createTestAccess, type TestAccess, type TestTokens } from './access-tokens';
export {
  checkActs,
  replicaStatus,
  reportLeaseRounds,
  runLeaseRounds,
  startReplica,
  TEST_LEASE,
  waitUntilServing,
  type LeaseRoundsOptions,
  type LeaseRoundsResult,
  type RecordedAct,
  type Replica,
} from './lease-replicas';
export {
  closeLeaseWorld,
  finishLeaseSpec,
  openLeaseWorld,
  runLeaseSpecRounds,
  type LeaseSpecWorld,
} from './lease-spec';
export {
  figureProblem,
  formatFigure,
  parseFigure,
  percentile,
  printFigure,
  unitOfFigureName,
  type BenchFigure,
} from './bench-figure';
export { measureRequestsPerSecond, type LoadClock, type LoadOptions } from './http-load';
export { RFC8032_PUBLIC_KEY, RFC8032_SECRET_KEY, sampleEvaluationReport } from './sample-evaluation-report';
export {
  startStack,
  STACK_PORT_VARIABLES,
  type StackPortVariable,
  type StackProcess,
  type StartStackOptions,
} from './stack-process';
export { createMemoryCgroup, type MemoryCgroup } from './memory-cgroup';
export { allocatedBytes, topAllocationSites, type SamplingProfile } from './heap-sampling';
export {
  asRoot,
  commandWorks,
  describeRequiring,
  goOnPath,
  itRequiring,
  suitePlan,
  type Requirement,
  type SuitePlan,
} from './describe-requiring';
export { HOLD_JOBS_PRELOAD, holdingLine } from './hold-jobs';
