import { z } from 'zod';

/** Error codes of our HTTP APIs and failed jobs. Persistent: clients match on them. */
export const ErrorCode = {
  InvalidRequest: 'invalid_request',
  /** 401: no credential, or not one this API knows. */
  Unauthenticated: 'unauthenticated',
  /** 403: a known credential whose role does not allow the call (a read token on a write). */
  Forbidden: 'forbidden',
  /** 421: the `Host` header names none of the service's own names (DNS rebinding from a browser). */
  MisdirectedRequest: 'misdirected_request',
  NotFound: 'not_found',
  Conflict: 'conflict',
  PayloadTooLarge: 'payload_too_large',
  Unavailable: 'unavailable',
  Internal: 'internal',
  /** 422: an `Idempotency-Key` already names an order with a different body. */
  IdempotencyKeyReused: 'idempotency_key_reused',
  /** A drain is already active: one at a time. */
  DrainInProgress: 'drain_in_progress',
  /** The drain has ended; it can no longer be aborted or extended. */
  DrainFinished: 'drain_finished',
  /** The drain is past the phase where this change applies (e.g. extend after `draining`). */
  DrainPhaseConflict: 'drain_phase_conflict',
  /** The change would put the deadline more than 12 h after the drain's start. */
  DrainWindowExceeded: 'drain_window_exceeded',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ErrorCodeSchema = z.enum(Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]]);

/**
 * The HTTP status each code is answered with: the one table the services' errors, their error
 * middleware and the OpenAPI documents all take it from.
 */
export const HTTP_STATUS_OF_ERROR_CODE: Readonly<Record<ErrorCode, number>> = {
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.Unauthenticated]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.MisdirectedRequest]: 421,
  [ErrorCode.Internal]: 500,
  [ErrorCode.Unavailable]: 503,
  [ErrorCode.DrainInProgress]: 409,
  [ErrorCode.DrainFinished]: 409,
  [ErrorCode.DrainPhaseConflict]: 409,
  [ErrorCode.DrainWindowExceeded]: 409,
  [ErrorCode.IdempotencyKeyReused]: 422,
};

/** The HTTP status of `code` ({@link HTTP_STATUS_OF_ERROR_CODE}). */
export function httpStatusOf(code: ErrorCode): number {
  return HTTP_STATUS_OF_ERROR_CODE[code];
}

/** The one error body every one of our HTTP APIs returns. */
export const ErrorBodySchema = z.strictObject({
  error: z.strictObject({
    code: ErrorCodeSchema,
    message: z.string().min(1),
    /** Paths and messages of each invalid field, for `invalid_request`. */
    issues: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
  }),
  requestId: z.string().min(1),
});

export type ErrorBody = z.infer<typeof ErrorBodySchema>;
