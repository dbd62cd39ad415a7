export {
  AppError,
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
  UnavailableError,
  type FieldIssue,
} from './errors/app-error';
export { loadConfig, type ConfigIo, type Env } from './config/load-config';
export {
  durationMsField,
  flagField,
  hostField,
  listenPortField,
  portField,
  logLevelField,
  nodeEnvField,
  secretFilePathField,
  type LogLevel,
  type NodeEnv,
} from './config/env-fields';
export {
  readSecretFile,
  readSecretFileText,
  SecretFileError,
  type ReadSecretFileOptions,
} from './config/secret-file';
export { createSecretScrubber, type SecretScrubber } from './logging/secret-scrubber';
export type { SerializedError, SerializeErrorOptions } from './logging/error-serializer';
export type { SerializedRequest } from './logging/http-serializers';
export { createLogger, type CreateLoggerOptions, type ServiceLogger } from './logging/logger';
export {
  createHealth,
  type CheckStatus,
  type CreateHealthOptions,
  type Health,
  type LifecycleState,
  type ReadinessCheck,
  type ReadinessReport,
} from './health/health';
export {
  createMetrics,
  type CreateMetricsOptions,
  type HttpLabel,
  type ServiceMetrics,
} from './metrics/metrics';
export { mapError, type MappedError } from './http/error-middleware';
export { validate } from './http/validate';
export { openApiRouter } from './http/openapi';
export { serveRoute, type ContractHandler, type ServeRouteOptions } from './http/contract-route';
export { createHttpApp, type CreateHttpAppOptions } from './http/create-http-app';
export { boundPort, closeServer, listen, type CloseServerOptions, type ListenOptions } from './http/listen';
export { realSchedule, type Schedule, type TimerHandle } from './lifecycle/timers';
export {
  type CreateShutdownOptions,
  type Shutdown,
  type ShutdownHook,
  type ShutdownPhase,
} from './lifecycle/shutdown';
export { installSignalHandlers, type SignalSource } from './lifecycle/signals';
export {
  createServiceRuntime,
  serveHttp,
  type CreateServiceRuntimeOptions,
  type ServeHttpOptions,
  type ServiceRuntime,
} from './lifecycle/service-runtime';
export { bearerAuth, bearerToken } from './http/bearer-auth';
export {
  baseEnvSchema,
  coreEnvSchema,
  type BaseEnv,
  type BaseEnvDefaults,
  type CoreEnv,
} from './config/base-env';
export {
  startService,
  type ServiceAccessOptions,
  type ServiceContext,
  type ServiceDefinition,
  type ServiceWiring,
  type StartedService,
  type StartHook,
} from './service/start-service';
export { accessPolicy, type AccessPolicyOptions, type AccessRole, type AccessTokens } from './http/access';
export { backoffDelay, type BackoffOptions } from './lifecycle/backoff';
export { BoundedMemo } from './memo/bounded-memo';
export { monotonicClock, systemClock, type Clock } from './lifecycle/clock';
export {
  runActiveParts,
  type ActiveParts,
  type LeaseGate,
  type LeaseGateHandlers,
} from './service/lease-gate';
