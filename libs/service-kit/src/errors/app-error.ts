import { ErrorCode, type FieldIssue } from '@sandbox/protocol';

export type { FieldIssue };

/**
 * A business error with a protocol error code and an HTTP status. The error middleware maps it to
 * `{ error: { code, message }, requestId }`; the `cause` is logged (for 5xx) but never sent.
 */
export class AppError extends Error {
  override readonly name: string = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: readonly FieldIssue[] | undefined;

  constructor(
    code: ErrorCode,
    status: number,
    message: string,
    options?: { cause?: unknown; issues?: FieldIssue[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = status;
    this.issues = options?.issues;
  }
}

/** 400: the request is malformed; `issues` lists every bad field. */
export class InputError extends AppError {
  override readonly name = 'InputError';
  constructor(message: string, options?: { cause?: unknown; issues?: FieldIssue[] }) {
    super(ErrorCode.InvalidRequest, 400, message, options);
  }
}

/** 401 (HTTP's "Unauthorized"): missing or wrong credential; code `unauthenticated`. */
export class UnauthorizedError extends AppError {
  override readonly name = 'UnauthorizedError';
  constructor(message = 'missing or invalid credential', options?: { cause?: unknown }) {
    super(ErrorCode.Unauthenticated, 401, message, options);
  }
}

/** 421: the request names a host this service does not answer to. */
export class MisdirectedRequestError extends AppError {
  override readonly name = 'MisdirectedRequestError';
  constructor(message = 'this service does not answer to that host name', options?: { cause?: unknown }) {
    super(ErrorCode.MisdirectedRequest, 421, message, options);
  }
}

/** 403: authenticated, but not allowed. */
export class ForbiddenError extends AppError {
  override readonly name = 'ForbiddenError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Forbidden, 403, message, options);
  }
}

/** 404: the named resource does not exist. */
export class NotFoundError extends AppError {
  override readonly name = 'NotFoundError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.NotFound, 404, message, options);
  }
}

/** 409: the request conflicts with the resource's current state. */
export class ConflictError extends AppError {
  override readonly name = 'ConflictError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Conflict, 409, message, options);
  }
}

/** 413: the body is larger than the limit. */
export class PayloadTooLargeError extends AppError {
  override readonly name = 'PayloadTooLargeError';
  constructor(message = 'request body too large', options?: { cause?: unknown }) {
    super(ErrorCode.PayloadTooLarge, 413, message, options);
  }
}

/** 503: a dependency (Redis, a peer) is unavailable; the caller may retry. */
export class UnavailableError extends AppError {
  override readonly name = 'UnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Unavailable, 503, message, options);
  }
}
