import { z } from 'zod';

/** Log levels a service accepts in `LOG_LEVEL`. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Values of `NODE_ENV`; only `development` shows stacks in logs. */
const NODE_ENVS = ['production', 'development', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/** A TCP port from the environment (`"7100"` → 7100), 1..65535. */
export function portField(fallback: number) {
  return z.coerce.number().int().min(1).max(65_535).default(fallback);
}

/**
 * A listen port that may be 0 (the OS picks one), for tests and tools.
 */
export function listenPortField(fallback: number) {
  return z.coerce.number().int().min(0).max(65_535).default(fallback);
}

/** An interface address to listen on. @defaultValue `127.0.0.1` (in a pod, set `0.0.0.0`). */
export function hostField(fallback = '127.0.0.1') {
  return z.string().min(1).default(fallback);
}

/** `LOG_LEVEL`. @defaultValue `info` */
export function logLevelField(fallback: LogLevel = 'info') {
  return z.enum(LOG_LEVELS).default(fallback);
}

/** `NODE_ENV`. @defaultValue `production`, so a forgotten variable never turns stacks on. */
export function nodeEnvField(fallback: NodeEnv = 'production') {
  return z.enum(NODE_ENVS).default(fallback);
}

/** A boolean flag: `true|false|1|0|yes|no|on|off` (unlike `z.coerce.boolean`, `"false"` is false). */
export function flagField(fallback: boolean) {
  return z.stringbool().default(fallback);
}

/** A whole number of milliseconds, at least `min`. */
export function durationMsField(fallback: number, min = 0) {
  return z.coerce.number().int().min(min).default(fallback);
}

/**
 * The path of a file holding a secret (a Kubernetes secret volume, a file under `.data/`). The
 * configuration keeps only the path, so it stays pure and printable; `main.ts` reads the bytes with
 * `readSecretFile` and registers them with the logger's scrubber.
 */
export function secretFilePathField() {
  return z.string().min(1, 'must be the path of a file holding the secret');
}
