import { joinFieldIssues, type FieldIssue } from '@sandbox/protocol';
import { InputError, UnavailableError } from '@sandbox/service-kit';

// The HTTP-mapped errors below keep their base class's `name` (InputError, UnavailableError), which
// service-kit types as a literal; tell them apart with instanceof.

/**
 * Job data that a producer refused: it failed the job's schema, used a secret field name, or named
 * an unknown job. `issues` lists paths and messages only, never the offending values.
 */
export class JobDataError extends InputError {
  readonly queue: string;
  readonly jobName: string;

  constructor(queue: string, jobName: string, issues: FieldIssue[]) {
    super(`invalid data for job ${queue}/${jobName}: ${joinFieldIssues(issues)}`, { issues });
    this.queue = queue;
    this.jobName = jobName;
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
 * `always`, or AOF is off). A 503, so a caller waiting for an acknowledgement retries later.
 */
export class DurabilityUnavailableError extends UnavailableError {}

/** WAITAOF did not confirm the local fsync within its timeout. */
export class DurableWriteTimeoutError extends UnavailableError {}
