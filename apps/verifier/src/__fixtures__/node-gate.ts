import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

/** How the front answers for Node: forward, 503, hold every request unanswered, or not listen at all. */
export type NodeGateMode = 'up' | '5xx' | 'hang' | 'refuse';

/**
 * A front for Node's public URL that injects orchestrator-level faults: Node answering 503, Node
 * holding requests past the verifier's timeout, and nothing listening (connections refused).
 */
export async function startNodeGate(nodeUrl: string, port: number) {
  let mode: NodeGateMode = 'up';
  const sockets = new Set<Socket>();
  const server: Server = createServer(async (req, res) => {
    if (mode === '5xx') return void res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
    if (mode === 'hang') return;
    const reply = await fetch(`${nodeUrl}${req.url ?? '/'}`, { method: req.method });
    res
      .writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'text/plain' })
      .end(Buffer.from(await reply.arrayBuffer()));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const listen = () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const unlisten = async () => {
    for (const socket of sockets) socket.destroy();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  };
  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    async setMode(next: NodeGateMode) {
      if (next === 'refuse' && server.listening) await unlisten();
      if (next !== 'refuse' && !server.listening) await listen();
      mode = next;
    },
    close: unlisten,
  };
}
