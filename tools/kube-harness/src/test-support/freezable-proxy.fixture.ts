import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy to the API server whose open connections can be frozen. */
export interface FreezableProxy {
  readonly port: number;
  /**
   * Stops delivering anything on the connections open now, without closing them: a watch on one of
   * them goes silent with no error, as behind a dead network path. New connections work normally.
   */
  freezeOpenConnections(): void;
  close(): Promise<void>;
}

/** Starts a loopback TCP proxy to `127.0.0.1:<targetPort>` (TLS passes through untouched). */
export async function startFreezableProxy(targetPort: number): Promise<FreezableProxy> {
  const pairs = new Set<[Socket, Socket]>();
  const frozen = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port: targetPort });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    freezeOpenConnections: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
        frozen.add([client, upstream]);
      }
      pairs.clear();
    },
    close: async () => {
      await new Promise((resolve) => {
        server.close(resolve);
        for (const [client, upstream] of [...pairs, ...frozen]) {
          client.destroy();
          upstream.destroy();
        }
      });
    },
  };
}
