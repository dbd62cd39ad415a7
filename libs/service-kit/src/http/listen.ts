import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where {@link listen} binds. */
export interface ListenOptions {
  /** 0 lets the OS pick (tests). */
  port: number;
  /** @defaultValue `127.0.0.1` */
  host?: string;
  /** Options of the server (its timeouts). @defaultValue Node's */
  serverOptions?: ServerOptions;
}

/** Starts an HTTP server for the app; resolves once it is listening, rejects on a bind error. */
export function listen(app: RequestListener, options: ListenOptions): Promise<Server> {
  const server = createServer(options.serverOptions ?? {}, app);
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      server.close();
      reject(error);
    };
    server.once('error', onError);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', onError);
      resolve(server);
    });
  });
}

/** The port a listening server is bound to. */
export function boundPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}

/** Options of {@link closeServer}. */
export interface CloseServerOptions {
  /**
   * After this long, connections still open (streams, WebSockets) are cut. @defaultValue none: wait
   * for them (the shutdown's hard timer is the backstop)
   */
  forceAfterMs?: number;
  /** How often keep-alive connections that became idle are closed. @defaultValue 100 */
  idleSweepMs?: number;
}

/**
 * Stops a server gracefully: stops accepting at once, closes idle keep-alive connections, lets
 * in-flight requests finish and resolves when the last connection is gone. Node keeps a
 * keep-alive connection open after its in-flight response even once the server is closing, so
 * idle connections are swept again until none is left, and requests that still arrive on an open
 * connection are answered with `Connection: close`.
 */
export function closeServer(server: Server, options: CloseServerOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) {
      resolve();
      return;
    }
    const lastCall = (_req: IncomingMessage, res: ServerResponse): void => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    };
    server.on('request', lastCall);
    const sweep = setInterval(() => server.closeIdleConnections(), options.idleSweepMs ?? 100);
    const force =
      options.forceAfterMs === undefined
        ? undefined
        : setTimeout(() => server.closeAllConnections(), options.forceAfterMs);
    server.close((error) => {
      clearInterval(sweep);
      clearTimeout(force);
      server.off('request', lastCall);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
