import type { z } from 'zod';
import type { FieldIssue } from '../errors/app-error';
import { formatZodIssues } from '@sandbox/protocol';

/** Where {@link loadConfig} reports and how it stops; injectable so tests need no real exit. */
export interface ConfigIo {
  /** Ends the process; must not return. */
  exit(code: number): never;
  /** Writes one chunk of text to the error stream. */
  writeError(text: string): void;
}

/** The real process: stderr and `process.exit`. */
export const processConfigIo: ConfigIo = {
  exit: (code) => process.exit(code),
  writeError: (text) => {
    process.stderr.write(text);
  },
};

/** The environment as a plain map (`process.env` fits). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Parses the environment with an app's zod schema, once, at the top of `main.ts`.
 *
 * On failure it writes ONE JSON line to stderr listing every problem as `{ path, message }` (never
 * the value: the environment holds secrets) and exits 1, so the process stops before any port opens.
 * The line is shaped like our pino logs (`level`, `time`, `msg`) because the logger does not exist yet
 * (its level is part of the configuration).
 *
 * @param io - @defaultValue {@link processConfigIo}
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Env,
  io: ConfigIo = processConfigIo,
): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const issues = formatZodIssues(result.error);
  io.writeError(formatConfigFailure(issues));
  return io.exit(1);
}

/** The stderr line {@link loadConfig} writes; exported for tools that want the same shape. */
export function formatConfigFailure(issues: readonly FieldIssue[], now: Date = new Date()): string {
  const line = { level: 'fatal', time: now.getTime(), msg: 'invalid configuration', issues };
  return `${JSON.stringify(line)}\n`;
}
