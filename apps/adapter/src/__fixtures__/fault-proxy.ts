// An HTTP proxy in front of the simulator for specs: counts registrations and can stall O2R long-polls.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** Where requests go (`http://127.0.0.1:<port>`); read per request, so it may change. */
  target: () => string;
  /** The bootstrap secret, to count registrations (heartbeats sent with it). */
  bootstrapSecret: string;
  /** Sees each request when it arrives (before forwarding), with its whole body. */
  onRequest?(req: IncomingMessage, body: Buffer): void;
  /** Sees each answered registration (a heartbeat sent with the bootstrap secret). */
  onRegistration?(status: number): void;
}

/** A running proxy. */
export interface FaultProxy {
  readonly url: string;
  /** Heartbeats sent with the bootstrap secret that Node answered 200. */
  readonly registrations: number;
  /** O2R reads forwarded. */
  readonly o2rReads: number;
  /** From now on O2R reads (new and in flight) get no answer until {@link thaw}. */
  freezeO2R(): void;
  thaw(): void;
  close(): Promise<void>;
}

const isO2R = (req: IncomingMessage): boolean =>
  req.method === 'GET' && (req.url ?? '').includes('/ai/trickle/');

/** Starts the proxy on a free loopback port. */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  let frozen = false;
  let waiters: Array<() => void> = [];
  let registrations = 0;
  let o2rReads = 0;
  const gate = (): Promise<void> =>
    frozen ? new Promise((resolve) => waiters.push(resolve)) : Promise.resolve();

  const forward = async (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> => {
    const o2r = isO2R(req);
    if (o2r) {
      await gate();
      o2rReads += 1;
    }
    const target = new URL(req.url ?? '/', options.target());
    const upstream = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (reply) => {
        const chunks: Buffer[] = [];
        reply.on('data', (chunk: Buffer) => chunks.push(chunk));
        reply.on('end', () => {
          void (async () => {
            if (o2r) await gate();
            const bootstrap =
              req.headers.authorization === options.bootstrapSecret &&
              (req.url ?? '').endsWith('/runners/heartbeat');
            if (bootstrap && reply.statusCode === 200) registrations += 1;
            if (bootstrap) options.onRegistration?.(reply.statusCode ?? 0);
            if (res.destroyed) return;
            res.writeHead(reply.statusCode ?? 502, reply.headers);
            res.end(Buffer.concat(chunks));
          })();
        });
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent && !res.destroyed) res.writeHead(502).end();
      else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      options.onRequest?.(req, body);
      void forward(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const thaw = (): void => {
    frozen = false;
    const released = waiters;
    waiters = [];
    for (const resolve of released) resolve();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    get registrations() {
      return registrations;
    },
    get o2rReads() {
      return o2rReads;
    },
    freezeO2R() {
      frozen = true;
    },
    thaw,
    close() {
      thaw();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
