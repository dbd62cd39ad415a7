// What other tools (the soak) build the embedded stack from, without starting it as main.ts does.
export { inheritedEnv, StackConfigSchema, type StackConfig } from './config';
export { createStackConsole, type StackConsole } from './console';
export type { ProcessSpec } from './managed-process';
export { restrictRedisData } from './redis-data';
export { RESTART_SIGNAL } from './restart-on-request/restart-files';
export { runStack, type RunStackOptions } from './run-stack';
export { localInstances, type StackInstances } from './stack-instances';
export { stackMembers, type StackContext } from './stack-members';
export { ensureStackSecrets, type StackSecrets } from './stack-secrets';
export type { SupervisedMember } from './supervisor';
