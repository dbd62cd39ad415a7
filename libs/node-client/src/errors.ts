/** How a call to Node failed: Node answered with an error status, could not be reached, or sent a body we cannot use. */
export type NodeFailureKind = 'http' | 'network' | 'timeout' | 'invalid-response';

/** Longest reason kept from a response; Node's own messages are far shorter. */
const MAX_REASON_LENGTH = 256;

/** Removes control characters and bounds the length, so a reason is safe to log and show. */
export function cleanReason(text: string): string {
  // eslint-disable-next-line no-control-regex
  const printable = text.replace(/[\u0000-\u001f\u007f]+/gu, ' ').trim();
  return printable.length > MAX_REASON_LENGTH ? `${printable.slice(0, MAX_REASON_LENGTH - 1)}…` : printable;
}

/**
 * A failed call to Node. Messages never contain credentials: they name the route and Node's own
 * `{"error": ...}` message (which carries no secrets) or the transport problem.
 */
export class NodeRequestError extends Error {
  override readonly name: string = 'NodeRequestError';
  readonly kind: NodeFailureKind;
  /** Node's HTTP status, for `http` failures (and `invalid-response` ones that had a status). */
  readonly status: number | undefined;
  /** Node's error message, or a short description of the transport failure. */
  readonly reason: string;

  constructor(
    kind: NodeFailureKind,
    reason: string,
    options: { status?: number; route?: string; cause?: unknown } = {},
  ) {
    const cleaned = cleanReason(reason) || kind;
    const where = options.route === undefined ? '' : `${options.route}: `;
    const status = options.status === undefined ? '' : `${options.status} `;
    super(`${where}${status}${cleaned}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
    this.reason = cleaned;
  }

  /** Node refused the request for good (400 or 403): retrying the same request cannot succeed. */
  get permanent(): boolean {
    return this.kind === 'http' && (this.status === 400 || this.status === 403);
  }

  /** Node does not accept the credential (401): the registration is gone, or the secret is wrong. */
  get unauthorized(): boolean {
    return this.kind === 'http' && this.status === 401;
  }
}

/** Narrows an unknown error to a {@link NodeRequestError}. */
export function isNodeRequestError(error: unknown): error is NodeRequestError {
  return error instanceof NodeRequestError;
}

/** A short label for metrics: the HTTP status (`"503"`) or the failure kind (`"network"`). */
export function failureLabel(error: unknown): string {
  if (!isNodeRequestError(error)) return 'internal';
  return error.kind === 'http' && error.status !== undefined ? String(error.status) : error.kind;
}
