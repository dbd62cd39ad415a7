import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A front for the remote signer that can be taken down (503) to simulate a signer outage, and that
 * records the `Authorization` headers it saw.
 */
export async function startSignerGate(signerUrl: string) {
  let up = true;
  const authorizations: string[] = [];
  const server: Server = createServer(async (req, res) => {
    authorizations.push(String(req.headers.authorization ?? ''));
    if (!up) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}');
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const reply = await fetch(`${signerUrl}${req.url ?? '/'}`, {
      method: req.method,
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat(chunks),
    });
    const headers: Record<string, string> = {};
    reply.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection')
        headers[name] = value;
    });
    res.writeHead(reply.status, headers).end(Buffer.from(await reply.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    setUp: (value: boolean) => void (up = value),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
