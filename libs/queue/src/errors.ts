import { ErrorCode, joinFieldIssues, type FieldIssue } from '@sandbox/protocol';

/**
 * An error of the queue library. It carries a protocol `code` and no HTTP status: an HTTP service's
 * error middleware maps the code to a status (`invalid_request` 400, `unavailable` 503).
 */
export class QueueError extends Error {
  override readonly name: string = 'QueueError';
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/**
 * Job data that a producer refused: it failed the job's schema, used a secret field name, or named
 * an unknown job. `issues` lists paths and messages only, never the offending values.
 */
export class JobDataError extends QueueError {
  override readonly name = 'JobDataError';
  readonly queue: string;
  readonly jobName: string;
  readonly issues: readonly FieldIssue[];

  constructor(queue: string, jobName: string, issues: FieldIssue[]) {
    super(ErrorCode.InvalidRequest, `invalid data for job ${queue}/${jobName}: ${joinFieldIssues(issues)}`);
    this.queue = queue;
    this.jobName = jobName;
    this.issues = issues;
  }
}

/** Redis cannot take the job now (down, loading, out of memory): the caller may retry later. */
export class QueueUnavailableError extends QueueError {
  override readonly name = 'QueueUnavailableError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Unavailable, message, options);
  }
}

/** The Redis server is configured so that BullMQ may lose jobs; `problems` says what to fix. */
export class RedisPreflightError extends Error {
  override readonly name = 'RedisPreflightError';
  readonly problems: readonly string[];

  constructor(problems: string[], options?: { cause?: unknown }) {
    super(`Redis preflight failed:\n- ${problems.join('\n- ')}`, options);
    this.problems = problems;
  }
}

/**
 * The server cannot confirm that a write reached the disk (no WAITAOF and `appendfsync` is not
 * `always`, or AOF is off). Unavailable, so a caller waiting for an acknowledgement retries later.
 */
export class DurabilityUnavailableError extends QueueError {
  override readonly name = 'DurabilityUnavailableError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Unavailable, message, options);
  }
}

/** WAITAOF did not confirm the local fsync within its timeout. */
export class DurableWriteTimeoutError extends QueueError {
  override readonly name = 'DurableWriteTimeoutError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Unavailable, message, options);
  }
}
