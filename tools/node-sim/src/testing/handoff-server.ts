import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WinningTicket } from '@sandbox/protocol';

/** A stand-in for redemption-handoff's intake: records batches and answers as told. */
export interface HandoffServer {
  readonly url: string;
  readonly batches: Array<{ authorization: string | undefined; tickets: WinningTicket[] }>;
  /** Status to answer with (2xx answers carry one result per ticket). */
  status: number;
  /** Result status per ticket for 2xx answers. */
  verdict: (ticket: WinningTicket) => 'accepted' | 'duplicate' | 'rejected';
  close(): Promise<void>;
}

export async function startHandoffServer(): Promise<HandoffServer> {
  const server: Server = createServer();
  const handoff: HandoffServer = {
    url: '',
    batches: [],
    status: 200,
    verdict: () => 'accepted',
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { tickets: WinningTicket[] };
      handoff.batches.push({ authorization: req.headers.authorization, tickets: body.tickets });
      res.statusCode = handoff.status;
      res.setHeader('Content-Type', 'application/json');
      if (handoff.status < 200 || handoff.status > 299) return void res.end('{"error":"down"}');
      const results = body.tickets.map((ticket, index) => {
        const status = handoff.verdict(ticket);
        return status === 'rejected'
          ? { index, status, ticketHash: ticket.ticketHash, reason: 'not_winning' }
          : { index, status, ticketHash: ticket.ticketHash };
      });
      res.end(JSON.stringify({ results }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(handoff, { url: `http://127.0.0.1:${port}/v1/winning-tickets` });
}
