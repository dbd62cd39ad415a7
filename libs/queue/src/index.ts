export {
  createRedisConnection,
  isRedisUnavailableError,
  type RedisConnectionOptions,
  type RedisRole,
} from './connection';
export { DEFAULT_JOB_OPTIONS, DEFAULT_QUEUE_PREFIX } from './defaults';
export {
  createDurableWriter,
  type DurabilityMode,
  type DurableWriter,
  type DurableWriterOptions,
} from './durable-write';
export {
  DurabilityUnavailableError,
  DurableWriteTimeoutError,
  JobDataError,
  QueueError,
  QueueUnavailableError,
  RedisPreflightError,
} from './errors';
export { findSecretKeyPaths, parseJobData } from './job-data';
export { defineLuaScripts, luaScript, type LuaScript } from './lua-script';
export { preflightRedis, type PreflightOptions, type RedisSettings } from './preflight';
export {
  createProducer,
  type AddJobOptions,
  type JobInput,
  type Producer,
  type ProducerDeps,
} from './producer';
export { reclaimOrphanedJobs, type ReclaimDeps, type ReclaimResult } from './reclaim';
export { orRedisUnavailable } from './redis-unavailable';
export { openRedisPair, type RedisPair, type RedisPairDeps } from './redis-pair';
export type { RedisCommandClient } from './redis-info';
export {
  createWorker,
  type JobHandlers,
  type TypedWorker,
  type WorkerDeps,
  type WorkerTuning,
} from './worker';
export { processWorkerName } from './worker-name';
