import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findShares, Keystream } from '@sandbox/evaluation-report';

/** How a misbehaving target goes wrong. */
export type Fault =
  | 'none'
  | 'wrong-shares'
  | 'altered-bytes'
  | 'truncated'
  | 'reset-upload'
  | 'hash-5xx'
  | 'hang-hash'
  /** Answers the first hash challenge, hangs on every later one. */
  | 'hang-later-hash';

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function download(req: IncomingMessage, res: ServerResponse, fault: Fault): Promise<void> {
  const { seed, bytes } = JSON.parse((await body(req)).toString()) as { seed: string; bytes: number };
  const stream = new Keystream(Buffer.from(seed, 'hex'), 'download');
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes });
  let sent = 0;
  const pump = (): void => {
    while (!res.destroyed) {
      const chunk = stream.next(65_536);
      sent += chunk.length;
      if (fault === 'altered-bytes' && sent > 1_000_000) chunk[100] = (chunk[100] ?? 0) ^ 0xff;
      if (fault === 'truncated' && sent > 1_000_000) return void res.socket?.end();
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
  };
  pump();
}

const waiting = new Set<ServerResponse>();
let hashesAnswered = 0;

async function hash(req: IncomingMessage, res: ServerResponse, fault: Fault): Promise<void> {
  const request = JSON.parse((await body(req)).toString()) as {
    seed: string;
    difficultyBits: number;
    shares: number;
  };
  // Hangs until the client gives up (or the server closes).
  if (fault === 'hang-hash' || (fault === 'hang-later-hash' && hashesAnswered > 0)) {
    waiting.add(res);
    res.once('close', () => waiting.delete(res));
    return;
  }
  if (fault === 'hash-5xx') {
    res.writeHead(503).end();
    return;
  }
  const sessionId = String(req.headers['livepeer-session-id']);
  const { counters } = await findShares({
    seed: Buffer.from(request.seed, 'hex'),
    sessionId,
    difficultyBits: request.difficultyBits,
    shares: request.shares,
  });
  // Wrong shares: plausible-looking counters that were never checked against the target.
  const answer =
    fault === 'wrong-shares'
      ? counters.map((counter, index) => (index === 3 ? counter + 1 : counter))
      : counters;
  hashesAnswered += 1;
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ sessionId, counters: answer }));
}

async function upload(req: IncomingMessage, res: ServerResponse, fault: Fault): Promise<void> {
  let bytes = 0;
  const { createHash } = await import('node:crypto');
  const digest = createHash('sha256');
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    digest.update(chunk);
    if (fault === 'reset-upload' && bytes > 500_000) return void req.socket.destroy();
  }
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ bytes, sha256: digest.digest('hex') }));
}

/** A responder whose answers can be made wrong, standing in for a target that misbehaves. */
export async function startFaultyResponder() {
  let fault: Fault = 'none';
  const tokens = new Set<string>();
  const server: Server = createServer((req, res) => {
    const token = req.headers['livepeer-session-token'];
    if (typeof token === 'string') tokens.add(token);
    const path = req.url ?? '/';
    const route =
      path === '/v1/echo'
        ? Promise.resolve(void res.writeHead(204).end())
        : path === '/v1/download'
          ? download(req, res, fault)
          : path === '/v1/upload'
            ? upload(req, res, fault)
            : path === '/v1/hash'
              ? hash(req, res, fault)
              : Promise.resolve(void res.writeHead(404).end());
    route.catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    /** Sets the fault; `hang-later-hash` counts answers from here. */
    setFault(next: Fault) {
      fault = next;
      hashesAnswered = 0;
    },
    /** Hash requests left hanging now. */
    hashesWaiting: () => waiting.size,
    /** Every session token Node injected, to check none of them leaks. */
    sessionTokens: () => [...tokens],
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
