import { ErrorCode, ErrorCodeSchema, HTTP_STATUS_OF_ERROR_CODE } from '@sandbox/protocol';
import type { ErrorBody, FieldIssue } from '@sandbox/protocol';
import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError } from '../errors/app-error';
import type { ServiceLogger } from '../logging/logger';
import { requestIdOf } from './request-id';

/** The status and protocol body (without the request id) an error maps to. */
export interface MappedError {
  status: number;
  error: ErrorBody['error'];
}

/** The message of every 500: what went wrong is in the log, never in the response. */
export const INTERNAL_MESSAGE = 'internal error';

/**
 * An `Error` whose `code` is one of the protocol's (and `issues`, for `invalid_request`): what
 * infrastructure libraries (queue, drivers, clients) throw. Those errors carry a code and no status;
 * here the code becomes the status of the protocol's table.
 */
function codedError(error: unknown): MappedError | undefined {
  if (!(error instanceof Error)) return undefined;
  const fields = error as Error & { code?: unknown; issues?: readonly FieldIssue[] };
  const code = ErrorCodeSchema.safeParse(fields.code);
  // `internal` keeps the generic message of every 500: what went wrong is only logged.
  if (!code.success || code.data === ErrorCode.Internal) return undefined;
  const status = HTTP_STATUS_OF_ERROR_CODE[code.data];
  const issues = Array.isArray(fields.issues) ? { issues: [...fields.issues] } : {};
  return { status, error: { code: code.data, message: error.message, ...issues } };
}

/**
 * Maps a thrown value to a status and protocol error. AppError subclasses map to their own status,
 * code, message and issues; errors of infrastructure libraries to the status of their protocol code
 * (`HTTP_STATUS_OF_ERROR_CODE` of the protocol); body-parser's errors (malformed JSON, too large) to 400 and 413; anything
 * else to 500 `internal` with a generic message.
 */
export function mapError(error: unknown): MappedError {
  if (error instanceof AppError) {
    const issues = error.issues === undefined ? {} : { issues: [...error.issues] };
    return { status: error.status, error: { code: error.code, message: error.message, ...issues } };
  }
  const coded = codedError(error);
  if (coded) return coded;
  const parser = bodyParserError(error);
  if (parser === 'entity.too.large') {
    return {
      status: HTTP_STATUS_OF_ERROR_CODE[ErrorCode.PayloadTooLarge],
      error: { code: ErrorCode.PayloadTooLarge, message: 'request body too large' },
    };
  }
  if (parser === 'entity.parse.failed') {
    return {
      status: HTTP_STATUS_OF_ERROR_CODE[ErrorCode.InvalidRequest],
      error: { code: ErrorCode.InvalidRequest, message: 'request body is not valid JSON' },
    };
  }
  if (parser !== undefined) {
    return {
      status: HTTP_STATUS_OF_ERROR_CODE[ErrorCode.InvalidRequest],
      error: { code: ErrorCode.InvalidRequest, message: 'request body could not be read' },
    };
  }
  return {
    status: HTTP_STATUS_OF_ERROR_CODE[ErrorCode.Internal],
    error: { code: ErrorCode.Internal, message: INTERNAL_MESSAGE },
  };
}

// body-parser marks its client errors with a string `type`, `expose: true` and a 4xx status.
function bodyParserError(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, expose, status } = error as { type?: unknown; expose?: unknown; status?: unknown };
  const clientError = typeof status === 'number' && status >= 400 && status < 500;
  return typeof type === 'string' && expose === true && clientError ? type : undefined;
}

/** Sends the protocol error body with the request's id. */
export function sendError(req: Request, res: Response, status: number, error: ErrorBody['error']): void {
  const body: ErrorBody = { error, requestId: requestIdOf(req) || 'unknown' };
  res.status(status).json(body);
}

/**
 * The one error middleware (mount it last). Responds with the mapped protocol body, never a stack;
 * logs only 5xx (500 at `error`, other 5xx at `warn`) with the error and its cause; if the response
 * has already started it only logs and ends the connection, since no status can be sent any more.
 */
export function errorMiddleware(deps: { logger: ServiceLogger }): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const mapped = mapError(error);
    const log = (req as Request & { log?: ServiceLogger }).log ?? deps.logger;
    if (res.headersSent) {
      log.error({ err: error, reqId: requestIdOf(req) }, 'request failed after the response started');
      if (!res.writableEnded) res.destroy();
      return;
    }
    if (mapped.status >= 500) {
      const level = mapped.status === 500 ? 'error' : 'warn';
      log[level]({ err: error, reqId: requestIdOf(req), status: mapped.status }, 'request failed');
    }
    sendError(req, res, mapped.status, mapped.error);
  };
}
