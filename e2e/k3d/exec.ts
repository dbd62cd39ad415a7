import { describeExit, startChildProcess } from '@sandbox/process';

/** Options of {@link exec}. */
export interface ExecOptions {
  /** Added to PATH, HOME and the Docker variables (the child inherits nothing else). */
  env?: Record<string, string>;
  cwd?: string;
  /** @defaultValue 120000 */
  timeoutMs?: number;
  /** Resolve on a non-zero exit instead of throwing. */
  allowFailure?: boolean;
  /** Each line as it is printed (long builds show progress). */
  onLine?: (line: string) => void;
}

/** How a command ended. */
export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program in its own process group (killed whole on timeout or when this process exits). */
export type Exec = (command: string, args: readonly string[], options?: ExecOptions) => Promise<ExecResult>;

/** Passed through when set: where the Docker engine is (rootless, remote, contexts). */
const DOCKER_ENV = [
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'XDG_RUNTIME_DIR',
];

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  for (const name of DOCKER_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The real {@link Exec}, on `@sandbox/process`. */
export const exec: Exec = async (command, args, options = {}) => {
  const child = startChildProcess(command, args, {
    cwd: options.cwd,
    env: { ...baseEnv(), ...options.env },
    onLine: options.onLine ? (line) => options.onLine?.(line) : undefined,
  });
  const timeoutMs = options.timeoutMs ?? 120_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const ended = await Promise.race([child.exited, timedOut]);
  clearTimeout(timer);
  if (ended === 'timeout') {
    await child.kill();
    throw new Error(
      `${command} ${args[0] ?? ''} timed out after ${timeoutMs} ms:\n${child.output().slice(-2_000)}`,
    );
  }
  const result = { code: ended.code, stdout: child.stdout(), stderr: child.stderr() };
  if (ended.code !== 0 && !options.allowFailure)
    throw new Error(
      `${command} ${args.slice(0, 3).join(' ')} ${describeExit(ended)}:\n${child.output().slice(-2_000)}`,
    );
  return result;
};
