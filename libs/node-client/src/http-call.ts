import { NodeRequestError } from './errors';
import { HttpTimeoutError, type HttpAnswer, type HttpTransport } from './http-transport';

/** One request to Node. */
export interface NodeCall {
  method: 'GET' | 'POST';
  url: string;
  /** Route name for error messages (`heartbeat`, `unregister`); never the URL, which may be long. */
  route: string;
  headers?: Record<string, string>;
  body?: string;
  /** Deadline for the whole exchange, body included. */
  timeoutMs: number;
  /** Cancels the call (service shutdown); the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A response read in full. */
export interface NodeReply extends HttpAnswer {
  /** From sending the request to the end of the body. */
  latencyMs: number;
}

/** The transport error code of a failed request (`ECONNREFUSED`), if any. */
function transportCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ABORT_ERR') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Sends one request and reads the whole body within `timeoutMs`. Rejects with a
 * {@link NodeRequestError} of kind `timeout` or `network`; an abort by `signal` rejects with the
 * signal's reason instead, so callers that stop can tell it apart.
 */
export async function callNode(transport: HttpTransport, call: NodeCall): Promise<NodeReply> {
  const timeoutMs = Math.max(1, Math.round(call.timeoutMs));
  const started = performance.now();
  try {
    // The transport keeps the deadline: no AbortController and listener per call.
    const answer = await transport({
      method: call.method,
      url: call.url,
      ...(call.headers === undefined ? {} : { headers: call.headers }),
      ...(call.body === undefined ? {} : { body: call.body }),
      ...(call.signal === undefined ? {} : { signal: call.signal }),
      timeoutMs,
    });
    return { ...answer, latencyMs: performance.now() - started };
  } catch (error) {
    if (call.signal?.aborted) throw call.signal.reason;
    const route = call.route;
    if (error instanceof HttpTimeoutError) {
      throw new NodeRequestError('timeout', `no answer within ${Math.round(call.timeoutMs)} ms`, {
        route,
        cause: error,
      });
    }
    const code = transportCode(error);
    const reason = code === undefined ? 'request failed' : `request failed (${code})`;
    throw new NodeRequestError('network', reason, { route, cause: error });
  }
}
