import type { ErrorBody } from '@sandbox/protocol';

/** Exit codes: 1 for a failed operation, 2 for a command line that cannot be run as written. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** An error the CLI reports as one message (no stack) and turns into an exit code. */
export class CliError extends Error {
  override readonly name: string = 'CliError';
  readonly exitCode: number;
  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.exitCode = options.exitCode ?? EXIT_FAILURE;
  }
}

/** The command line is wrong (unknown flag value, missing file argument, bad context name). */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
  constructor(message: string) {
    super(message, { exitCode: EXIT_USAGE });
  }
}

/** A service answered with its protocol error body. */
export class ServiceError extends CliError {
  override readonly name = 'ServiceError';
  readonly service: string;
  readonly status: number;
  readonly body: ErrorBody;
  constructor(service: string, status: number, body: ErrorBody) {
    super(ServiceError.describe(service, status, body));
    this.service = service;
    this.status = status;
    this.body = body;
  }

  get code(): string {
    return this.body.error.code;
  }

  private static describe(service: string, status: number, body: ErrorBody): string {
    const issues = (body.error.issues ?? []).map(
      (issue) => `\n  ${issue.path || '(body)'}: ${issue.message}`,
    );
    return `${service} refused (${status} ${body.error.code}): ${body.error.message}${issues.join('')}`;
  }
}

/** The service could not be reached at all (refused, unresolvable, timed out). */
export class UnreachableError extends CliError {
  override readonly name = 'UnreachableError';
  readonly service: string;
  constructor(service: string, url: string, reason: string, cause: unknown) {
    super(
      `cannot reach ${service} at ${url}: ${reason} (is it running? set its URL with ` +
        `--server ${service}=URL, SANDBOXCTL_${envKey(service)}_URL or a context in the config file)`,
      { cause },
    );
    this.service = service;
  }
}

/** `instance-manager` → `INSTANCE_MANAGER`, for environment variable names. */
export function envKey(service: string): string {
  return service.toUpperCase().replace(/-/g, '_');
}
