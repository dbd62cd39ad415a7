/** One HTTP exchange with Node. */
export interface HttpExchange {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Aborts the exchange; the promise then rejects. */
  signal?: AbortSignal;
  /**
   * Deadline of the whole exchange, body included: past it the request is dropped and the promise
   * rejects with an {@link HttpTimeoutError}. Every transport honours it (callers rely on it).
   */
  timeoutMs?: number;
}

/** An exchange that did not finish within its `timeoutMs`. */
export class HttpTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'HttpTimeoutError';
  }
}

/** Node's answer, read in full. */
export interface HttpAnswer {
  status: number;
  /** A response header (case-insensitive), or undefined. */
  header(name: string): string | undefined;
  text: string;
}

/** How the client talks HTTP; injectable so unit tests need no sockets. */
export type HttpTransport = (exchange: HttpExchange) => Promise<HttpAnswer>;
