import { BoundedMemo } from '@sandbox/service-kit';
import { HttpTimeoutError, type HttpAnswer, type HttpExchange } from '../http-exchange';
import { PlainConnection } from './plain-connection';
import { plainTargetOf, requestHead, type PlainTarget } from './request-head';
import type { ParsedResponse } from './response-parser';

/** Reads of every connection land here, one at a time, and are consumed before the next. */
const READ_BUFFER_BYTES = 64 * 1024;

/** A plain-HTTP transport with its idle connections; `close()` drops every connection. */
export interface PlainHttpTransport {
  (exchange: HttpExchange): Promise<HttpAnswer>;
  close(): void;
}

function answerOf(response: ParsedResponse): HttpAnswer {
  const { headers } = response;
  const header = (name: string): string | undefined => {
    const wanted = name.toLowerCase();
    let value: string | undefined;
    for (const [each, text] of headers)
      if (each === wanted) value = value === undefined ? text : `${value}, ${text}`;
    return value;
  };
  return { status: response.status, header, text: response.text };
}

/**
 * HTTP/1.1 over `node:net` for `http:` URLs, with keep-alive connections pooled per origin (most
 * recently used first) and one exchange per connection at a time. It exists for what 256 runners
 * heartbeating cost: node:http allocates about 18 KB per exchange (its agent, request and response
 * streams), this about 5 KB (`transport.bench.ts`). A connection is reused only after a complete, well-framed
 * response; a reused connection that fails is not retried (as with node:http): the caller's next
 * beat is its retry.
 */
export function createPlainHttpTransport(options: { maxFreeSockets: number }): PlainHttpTransport {
  const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  const targets = new BoundedMemo<PlainTarget>(256);
  const idle = new Map<string, PlainConnection[]>();
  const open = new Set<PlainConnection>();

  const forget = (connection: PlainConnection): void => {
    open.delete(connection);
    const { origin } = connection.target;
    const list = idle.get(origin);
    const index = list?.indexOf(connection) ?? -1;
    if (index !== -1) list?.splice(index, 1);
    if (list?.length === 0) idle.delete(origin);
  };
  const take = (target: PlainTarget): PlainConnection => {
    const list = idle.get(target.origin);
    for (let connection = list?.pop(); connection !== undefined; connection = list?.pop()) {
      if (connection.usable) return connection;
    }
    const connection = new PlainConnection(target, readBuffer, forget);
    open.add(connection);
    return connection;
  };
  const release = (connection: PlainConnection): void => {
    if (!connection.usable) return;
    const list = idle.get(connection.target.origin) ?? [];
    if (list.length >= options.maxFreeSockets) {
      connection.destroy();
      return;
    }
    list.push(connection);
    idle.set(connection.target.origin, list);
  };
  const targetOf = (url: string): PlainTarget => {
    let target = targets.get(url);
    if (target === undefined) {
      target = plainTargetOf(url);
      targets.set(url, target);
    }
    return target;
  };

  const transport = (exchange: HttpExchange): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const { signal, timeoutMs, body } = exchange;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const sent = body === undefined ? undefined : { text: body, bytes: Buffer.byteLength(body) };
      let target: PlainTarget;
      let head: string;
      try {
        target = targetOf(exchange.url);
        head = requestHead(exchange.method, target, exchange.headers, sent?.bytes);
      } catch (error) {
        reject(error);
        return;
      }
      const connection = take(target);
      const onAbort = (): void => connection.destroy(signal?.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => connection.destroy(new HttpTimeoutError(timeoutMs)), timeoutMs);
      connection.send(head, sent, (outcome) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if ('error' in outcome) {
          reject(outcome.error);
          return;
        }
        release(connection);
        resolve(answerOf(outcome.response));
      });
    });
  return Object.assign(transport, {
    close() {
      for (const connection of open) connection.destroy();
      open.clear();
      idle.clear();
    },
  });
}
