import type { Attribution, FailureKind } from '@sandbox/protocol';

/**
 * A failed run and who caused it. Reason codes are fixed strings (persistent: dashboards match them);
 * messages never carry seeds, tokens, payments or response bodies.
 */
export class RunFault extends Error {
  override readonly name = 'RunFault';
  constructor(
    readonly attribution: Exclude<Attribution, 'none'>,
    readonly reasonCode: string,
    message: string,
    readonly failureKind?: FailureKind,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Node, the runner, the app or the machine failed or misbehaved. */
export const targetFault = (reasonCode: string, message: string, kind?: FailureKind, cause?: unknown) =>
  new RunFault('target', reasonCode, message, kind, { cause });

/** The verifier, its signer, Redis or its collection failed. */
export const platformFault = (reasonCode: string, message: string, cause?: unknown) =>
  new RunFault('platform', reasonCode, message, undefined, { cause });

/** The evidence cannot say who failed. */
export const unknownFault = (reasonCode: string, message: string, cause?: unknown) =>
  new RunFault('unknown', reasonCode, message, undefined, { cause });

const NETWORK_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNREFUSED', 'UND_ERR_CLOSED']);

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

// Duck-typed: errors from fetch may come from another realm (vm contexts), where instanceof fails.
const errorLike = (value: unknown): ErrorLike | undefined =>
  typeof value === 'object' && value !== null ? (value as ErrorLike) : undefined;

function errorCode(error: unknown): string | undefined {
  let current = errorLike(error);
  for (let depth = 0; depth < 4 && current; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    current = errorLike(current.cause);
  }
  return undefined;
}

/** True for an abort by our own timer (`AbortSignal.timeout`). */
function isTimeout(error: unknown): boolean {
  return errorLike(error)?.name === 'TimeoutError' || errorCode(error) === 'UND_ERR_HEADERS_TIMEOUT';
}

/**
 * Classifies a failure on the target path (a request through Node): our timeout → `timeout`, a cut
 * connection → `reset`, anything else stays a target fault of kind `other`.
 */
export function targetPathFault(step: string, error: unknown): RunFault {
  if (error instanceof RunFault) return error;
  if (isTimeout(error)) return targetFault(`${step}-timeout`, `${step} timed out`, 'timeout', error);
  const code = errorCode(error);
  if (code && NETWORK_CODES.has(code))
    return targetFault(`${step}-reset`, `${step} connection was cut`, 'reset', error);
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH')
    return targetFault(`${step}-truncated`, `${step} body ended before its length`, 'reset', error);
  const like = errorLike(error);
  if (like?.name === 'TypeError' && like.message === 'terminated')
    return targetFault(`${step}-reset`, `${step} connection was cut`, 'reset', error);
  const name = typeof like?.name === 'string' ? like.name : typeof error;
  return targetFault(`${step}-failed`, `${step} failed (${code ?? name})`, 'other', error);
}

const REFUSED_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/**
 * Node's public URL did not answer at all (the first request of every run). A refused or cut
 * connection came from the machine's side: something at Node's address answered, and it was not
 * Node serving (`target`). A timeout, a name that does not resolve or a missing route could be the
 * machine or the verifier's own network, and the evidence does not tell which (`unknown`).
 */
export function nodeUnreachableFault(error: unknown): RunFault {
  if (error instanceof RunFault) return error;
  const code = errorCode(error);
  const like = errorLike(error);
  const cut = like?.name === 'TypeError' && like.message === 'terminated';
  if (cut || (code !== undefined && REFUSED_CODES.has(code)))
    return targetFault('node-unreachable', 'Node refused or cut the connection', 'reset', error);
  const kind: FailureKind = isTimeout(error) ? 'timeout' : 'other';
  return new RunFault('unknown', 'node-no-answer', `Node did not answer (${code ?? kind})`, kind, {
    cause: error,
  });
}

/** Maps an HTTP status from Node or the app to a fault on the target path. */
export function statusFault(step: string, status: number): RunFault {
  const kind: FailureKind = status >= 500 ? 'http-5xx' : 'http-4xx';
  return targetFault(`${step}-http-${status >= 500 ? '5xx' : '4xx'}`, `${step} answered ${status}`, kind);
}

/** A status other than the one the step expects: an HTTP error, or a wrong answer of the app. */
export function unexpectedStatus(step: string, status: number): RunFault {
  if (status >= 400) return statusFault(step, status);
  return targetFault(`${step}-bad-answer`, `${step} answered ${status}`, 'other');
}

/** Counts the fault's failure kind (when it has one) and returns it, to throw. */
export function counted(reliability: { fail(kind: FailureKind): void }, fault: RunFault): RunFault {
  if (fault.failureKind) reliability.fail(fault.failureKind);
  return fault;
}
