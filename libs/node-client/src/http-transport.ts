import { NodeLimits } from '@sandbox/protocol';
import { BoundedMemo } from '@sandbox/service-kit';
import { Agent } from 'undici';
import { AnswerHandler } from './answer-handler';
import { HttpTimeoutError, type HttpAnswer, type HttpExchange, type HttpTransport } from './http-exchange';

export { HttpTimeoutError, type HttpAnswer, type HttpExchange, type HttpTransport } from './http-exchange';

/** The part of `fetch` that {@link fetchTransport} needs. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** A {@link HttpTransport} over `fetch` (a fake one in tests). */
export function fetchTransport(fetchImpl: FetchLike): HttpTransport {
  return async (exchange) => {
    const { signal, timeoutMs } = exchange;
    const deadline = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const signals = [signal, deadline].filter((each) => each !== undefined);
    try {
      const response = await fetchImpl(exchange.url, {
        method: exchange.method,
        headers: exchange.headers,
        body: exchange.body,
        signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
        redirect: 'manual',
      });
      const text = await response.text();
      return { status: response.status, header: (name) => response.headers.get(name) ?? undefined, text };
    } catch (error) {
      if (deadline?.aborted === true && signal?.aborted !== true && timeoutMs !== undefined) {
        throw new HttpTimeoutError(timeoutMs);
      }
      throw error;
    }
  };
}

/** Options of {@link createHttpTransport}. */
export interface HttpTransportOptions {
  /**
   * How long an idle keep-alive connection is kept; a shorter `Keep-Alive: timeout` from the server
   * wins. @defaultValue 4000
   */
  keepAliveTimeoutMs?: number;
  /**
   * Most connections open to one origin at once; a call past it waits for one to come free, within
   * its own deadline. Each runner has at most one O2R long-poll and one call in flight, so the default
   * (two per runner Node allows) never makes a call wait: it only stops a runaway from opening
   * sockets without end. @defaultValue 512
   */
  maxConnectionsPerOrigin?: number;
  /**
   * Largest answer body read; a longer one (declared or as it arrives) fails the call with undici's
   * `ResponseExceededMaxSizeError` and drops its connection. A Node answer is a few KB, a trickle
   * segment at most a few MB. @defaultValue 64 MiB
   */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Two connections for each runner Node allows: its O2R long-poll and one call. */
const DEFAULT_MAX_CONNECTIONS_PER_ORIGIN = 2 * NodeLimits.maxRunners;

/** A transport with its connection pools; `close()` drops every connection. */
export interface ClosableHttpTransport extends HttpTransport {
  close(): void;
}

/** Where a URL's requests go, parsed once per URL. */
interface Target {
  origin: string;
  /** Path and query. */
  path: string;
  /** Basic credentials from the URL's userinfo, if any, as a header value. */
  authorization: string | undefined;
}

function targetOf(url: string): Target {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`not an http: or https: URL: ${parsed.protocol}`);
  }
  const userinfo =
    parsed.username === '' && parsed.password === ''
      ? undefined
      : `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  return {
    origin: parsed.origin,
    path: `${parsed.pathname}${parsed.search}`,
    authorization: userinfo === undefined ? undefined : `Basic ${Buffer.from(userinfo).toString('base64')}`,
  };
}

function hasAuthorization(headers: Record<string, string> | undefined): boolean {
  for (const name in headers) if (name.toLowerCase() === 'authorization') return true;
  return false;
}

function headersOf(exchange: HttpExchange, target: Target): Record<string, string> | undefined {
  const { headers } = exchange;
  if (target.authorization === undefined || hasAuthorization(headers)) return headers;
  return { ...headers, authorization: target.authorization };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, not ${value}`);
  }
  return value;
}

function agentOf(options: HttpTransportOptions, maxBodyBytes: number): Agent {
  const keepAliveTimeout = options.keepAliveTimeoutMs ?? 4_000;
  const connections = options.maxConnectionsPerOrigin ?? DEFAULT_MAX_CONNECTIONS_PER_ORIGIN;
  return new Agent({
    keepAliveTimeout,
    // The server's hint may shorten the idle time, never lengthen it.
    keepAliveMaxTimeout: keepAliveTimeout,
    connections: positiveInteger('maxConnectionsPerOrigin', connections),
    maxResponseSize: maxBodyBytes,
  });
}

/**
 * The transport for Node calls, `http:` and `https:`: undici's `Agent`, with a pool of keep-alive
 * connections per origin (as many connections as calls in flight, up to `maxConnectionsPerOrigin`;
 * idle ones closed after `keepAliveTimeoutMs`; an answer's body at most `maxBodyBytes`). Each exchange
 * goes through `Agent#dispatch` with an {@link AnswerHandler} that reads the answer straight into its
 * text: `request`'s response stream would cost every call another few KB of allocation, which 256
 * heartbeating runners pay.
 * Header values go out as Latin-1, byte for byte, so a secret's bytes are unchanged; a header that
 * would break the request (CR, LF, a character outside Latin-1) is refused before anything is sent,
 * and the error names the header, never its value. A URL's userinfo becomes Basic credentials unless
 * the call sends its own `Authorization`.
 */
export function createHttpTransport(options: HttpTransportOptions = {}): ClosableHttpTransport {
  const maxBodyBytes = positiveInteger('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const agent = agentOf(options, maxBodyBytes);
  const targets = new BoundedMemo<Target>(256);
  const targetFor = (url: string): Target => {
    let target = targets.get(url);
    if (target === undefined) {
      target = targetOf(url);
      targets.set(url, target);
    }
    return target;
  };
  const transport = (exchange: HttpExchange): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const { signal } = exchange;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const target = targetFor(exchange.url);
      const handler = new AnswerHandler(resolve, reject, {
        signal,
        timeoutMs: exchange.timeoutMs,
        maxBodyBytes,
      });
      const options = {
        origin: target.origin,
        path: target.path,
        method: exchange.method,
        headers: headersOf(exchange, target),
        body: exchange.body ?? null,
      };
      try {
        agent.dispatch(options, handler);
      } catch (error) {
        handler.failed(error);
      }
    });
  return Object.assign(transport, {
    close() {
      void agent.destroy().catch(() => undefined);
    },
  });
}

/** The process-wide default transport (one connection pool per origin, shared by every runner). */
export const defaultHttpTransport: ClosableHttpTransport = createHttpTransport();
