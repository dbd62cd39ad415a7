import { spawn } from 'node:child_process';

/** What a finished command printed and how it ended. */
export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Options of one command run. */
export interface CommandOptions {
  /** Text written to the command's standard input. */
  input?: string;
  /**
   * Kill the command after this long.
   * @defaultValue 30000
   */
  timeoutMs?: number;
  /** When true, a non-zero exit resolves instead of throwing {@link CommandError}. */
  allowFailure?: boolean;
}

/**
 * Runs a program with arguments (never through a shell). Injected into the driver so unit tests can
 * script the system's answers.
 */
export type CommandRunner = (
  command: string,
  args: readonly string[],
  options?: CommandOptions,
) => Promise<CommandResult>;

const MAX_DETAIL = 2_000;

/** A command exited non-zero, timed out or could not start. Carries the trimmed stderr for diagnosis. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
  readonly command: string;
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(
    command: string,
    args: readonly string[],
    exitCode: number | null,
    stderr: string,
    cause?: unknown,
  ) {
    const detail = stderr.trim().slice(0, MAX_DETAIL);
    super(
      `${command} ${args[0] ?? ''} failed (exit ${exitCode ?? 'none'}): ${detail}`,
      cause ? { cause } : undefined,
    );
    this.command = command;
    this.exitCode = exitCode;
    this.stderr = detail;
  }
}

/** The real {@link CommandRunner}: spawns the program and collects its output. */
export const runCommand: CommandRunner = (command, args, options = {}) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new CommandError(command, args, null, error.message, error));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const result = {
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        exitCode: code ?? -1,
      };
      if (result.exitCode === 0 || options.allowFailure) resolve(result);
      else
        reject(
          new CommandError(
            command,
            args,
            code,
            signal ? `killed by ${signal}; ${result.stderr}` : result.stderr,
          ),
        );
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
