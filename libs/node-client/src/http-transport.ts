import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { BoundedMemo } from '@sandbox/service-kit';
import { HttpTimeoutError, type HttpAnswer, type HttpExchange, type HttpTransport } from './http-exchange';
import { createPlainHttpTransport } from './http1/plain-http-transport';

export { HttpTimeoutError, type HttpAnswer, type HttpExchange, type HttpTransport } from './http-exchange';

/** The part of `fetch` that {@link fetchTransport} needs. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** A {@link HttpTransport} over `fetch` (a fake one in tests, or undici's where preferred). */
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
  /** Idle keep-alive connections kept per origin. @defaultValue 64 */
  maxFreeSockets?: number;
}

/** A node:http transport with its keep-alive agents; `close()` drops the pooled connections. */
export interface ClosableHttpTransport extends HttpTransport {
  close(): void;
}

function readAnswer(response: IncomingMessage): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    // Heartbeat answers arrive in one chunk: keep it as is rather than an array to concatenate.
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    response.on('data', (chunk: Buffer) => {
      if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
    });
    // `on`, not `once`: each settles the promise at most once anyway, without once's wrappers.
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('response aborted')));
    response.on('end', () => {
      const { headers } = response;
      const header = (name: string): string | undefined => {
        const value = headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value;
      };
      const body = more === undefined ? first : Buffer.concat(more);
      resolve({ status: response.statusCode ?? 0, header, text: body?.toString('utf8') ?? '' });
    });
  });
}

/** The request options of a URL that node:http reads (it copies them twice per request). */
type Target = Pick<ReturnType<typeof urlToHttpOptions>, 'protocol' | 'hostname' | 'port' | 'path' | 'auth'>;

function targetOf(url: string): Target {
  const { protocol, hostname, port, path, auth } = urlToHttpOptions(new URL(url));
  return auth === undefined ? { protocol, hostname, port, path } : { protocol, hostname, port, path, auth };
}

/**
 * Request options per URL, parsed once: every runner heartbeats to the same few URLs, and node:http
 * would otherwise build a URL and its options object again for each request.
 */
class TargetCache {
  private readonly targets = new BoundedMemo<Target>(256);

  of(url: string): Target {
    let target = this.targets.get(url);
    if (target === undefined) {
      target = targetOf(url);
      this.targets.set(url, target);
    }
    return target;
  }
}

/**
 * An {@link HttpTransport} on `node:http`/`node:https` with keep-alive agents. It allocates far less
 * per request than `fetch` (no WHATWG streams, native parser). {@link createHttpTransport} uses it
 * for `https:`; for `http:` it is kept as the measured alternative. Header values are written as
 * latin1, so a secret's bytes go out one to one.
 */
export function createNodeHttpTransport(options: HttpTransportOptions = {}): ClosableHttpTransport {
  const agentOptions = {
    keepAlive: true,
    maxFreeSockets: options.maxFreeSockets ?? 64,
    scheduling: 'lifo' as const,
  };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  const targets = new TargetCache();
  const transport = (exchange: HttpExchange): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const { signal } = exchange;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const secure = exchange.url.startsWith('https:');
      const send = secure ? httpsRequest : httpRequest;
      const { body } = exchange;
      const headers =
        body === undefined
          ? exchange.headers
          : { ...exchange.headers, 'Content-Length': String(Buffer.byteLength(body)) };
      const req = send({
        ...targets.of(exchange.url),
        method: exchange.method,
        headers,
        agent: secure ? agents.https : agents.http,
      });
      // One abort listener instead of node:http's `signal` option, which also attaches an
      // end-of-stream watcher (half a dozen listeners and closures) to every request.
      const onAbort = (): void => void req.destroy(signal?.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      const { timeoutMs } = exchange;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => void req.destroy(new HttpTimeoutError(timeoutMs)), timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      // `on`, not `once`: a late socket error after the answer must still find a listener.
      req.on('error', (error) => {
        done();
        reject(error);
      });
      req.on('response', (response) =>
        readAnswer(response).then(
          (answer) => {
            done();
            resolve(answer);
          },
          (error: unknown) => {
            done();
            reject(error);
          },
        ),
      );
      req.end(body);
    });
  return Object.assign(transport, {
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  });
}

/**
 * The transport for Node calls: `http:` URLs over this library's HTTP/1.1 client on `node:net`
 * (under a third of node:http's allocation per exchange, which is what 256 heartbeating runners pay),
 * `https:` URLs over node:https. Both pool keep-alive connections per origin.
 */
export function createHttpTransport(options: HttpTransportOptions = {}): ClosableHttpTransport {
  const maxFreeSockets = options.maxFreeSockets ?? 64;
  const plain = createPlainHttpTransport({ maxFreeSockets });
  const secure = createNodeHttpTransport({ maxFreeSockets });
  const transport = (exchange: HttpExchange): Promise<HttpAnswer> =>
    exchange.url.startsWith('http:') ? plain(exchange) : secure(exchange);
  return Object.assign(transport, {
    close() {
      plain.close();
      secure.close();
    },
  });
}

/** The process-wide default transport (one connection pool per origin, shared by every runner). */
export const defaultHttpTransport: ClosableHttpTransport = createHttpTransport();
