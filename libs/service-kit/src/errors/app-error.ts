import { ErrorCode, httpStatusOf, type FieldIssue } from '@sandbox/protocol';

export type { FieldIssue };

/**
 * A business error with a protocol error code; its HTTP status is the code's
 * (`HTTP_STATUS_OF_ERROR_CODE` of `@sandbox/protocol`). The error middleware maps it to
 * `{ error: { code, message }, requestId }`; the `cause` is logged (for 5xx) but never sent.
 */
export class AppError extends Error {
  override readonly name: string = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: readonly FieldIssue[] | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; issues?: FieldIssue[] }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = httpStatusOf(code);
    this.issues = options?.issues;
  }
}

/** 400: the request is malformed; `issues` lists every bad field. */
export class InputError extends AppError {
  override readonly name = 'InputError';
  constructor(message: string, options?: { cause?: unknown; issues?: FieldIssue[] }) {
    super(ErrorCode.InvalidRequest, message, options);
  }
}

/** 401 (HTTP's "Unauthorized"): missing or wrong credential; code `unauthenticated`. */
export class UnauthorizedError extends AppError {
  override readonly name = 'UnauthorizedError';
  constructor(message = 'missing or invalid credential', options?: { cause?: unknown }) {
    super(ErrorCode.Unauthenticated, message, options);
  }
}

/** 421: the request names a host this service does not answer to. */
export class MisdirectedRequestError extends AppError {
  override readonly name = 'MisdirectedRequestError';
  constructor(message = 'this service does not answer to that host name', options?: { cause?: unknown }) {
    super(ErrorCode.MisdirectedRequest, message, options);
  }
}

/** 403: authenticated, but not allowed. */
export class ForbiddenError extends AppError {
  override readonly name = 'ForbiddenError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Forbidden, message, options);
  }
}

/** 404: the named resource does not exist. */
export class NotFoundError extends AppError {
  override readonly name = 'NotFoundError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.NotFound, message, options);
  }
}

/** 409: the request conflicts with the resource's current state. */
export class ConflictError extends AppError {
  override readonly name = 'ConflictError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Conflict, message, options);
  }
}

/** 413: the body is larger than the limit. */
export class PayloadTooLargeError extends AppError {
  override readonly name = 'PayloadTooLargeError';
  constructor(message = 'request body too large', options?: { cause?: unknown }) {
    super(ErrorCode.PayloadTooLarge, message, options);
  }
}

/** 503: a dependency (Redis, a peer) is unavailable; the caller may retry. */
export class UnavailableError extends AppError {
  override readonly name = 'UnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Unavailable, message, options);
  }
}
