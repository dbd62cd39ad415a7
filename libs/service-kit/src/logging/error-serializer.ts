import { redactDeep } from './redact';

/** An error as it appears in a log line. */
export interface SerializedError {
  type: string;
  message: string;
  code?: string | number;
  status?: number;
  issues?: unknown;
  stack?: string;
  cause?: SerializedError | unknown;
  errors?: unknown[];
}

/** Options of {@link serializeError}. */
export interface SerializeErrorOptions {
  /** Include stacks; only in development. @defaultValue false */
  includeStack?: boolean;
  /** Applied to every text taken from the error (message, stack); the logger passes its scrubber. */
  scrub?: (text: string) => string;
}

const MAX_CAUSE_DEPTH = 5;

/**
 * Serializes an error for a log line from an allow-list of fields (type, message, code, status,
 * issues, cause, aggregated errors), never from all its properties: client errors carry requests,
 * commands and configs whose fields hold credentials under names no list can foresee. Stacks only
 * when `includeStack` is set. Registered secret values are scrubbed from every text.
 */
export function serializeError(error: unknown, options: SerializeErrorOptions = {}, depth = 0): unknown {
  const scrub = options.scrub ?? ((text: string) => text);
  if (!(error instanceof Error)) {
    return typeof error === 'string'
      ? scrub(error)
      : redactDeep(error, (inner) => serializeError(inner, options, depth + 1));
  }
  const out: SerializedError = { type: errorType(error), message: scrub(error.message) };
  const fields = error as Error & {
    code?: unknown;
    status?: unknown;
    statusCode?: unknown;
    issues?: unknown;
  };
  if (typeof fields.code === 'string' || typeof fields.code === 'number') out.code = fields.code;
  const status = fields.status ?? fields.statusCode;
  if (typeof status === 'number') out.status = status;
  if (fields.issues !== undefined) out.issues = redactDeep(fields.issues, () => '[Error]');
  if (options.includeStack && typeof error.stack === 'string') out.stack = scrub(error.stack);
  if (depth >= MAX_CAUSE_DEPTH) return out;
  if (error.cause !== undefined) out.cause = serializeError(error.cause, options, depth + 1);
  if (error instanceof AggregateError) {
    out.errors = (error.errors as unknown[])
      .slice(0, 10)
      .map((inner) => serializeError(inner, options, depth + 1));
  }
  return out;
}

function errorType(error: Error): string {
  const ctor = (error as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === 'string' && ctor.name !== '' ? ctor.name : error.name;
}
