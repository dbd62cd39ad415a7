import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Stands in for redemption-handoff: acknowledges every winning ticket Node hands off and counts them. */
export async function startHandoffCapture() {
  const hashes = new Set<string>();
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const { tickets } = JSON.parse(text) as { tickets: { ticketHash: string }[] };
      for (const ticket of tickets) hashes.add(ticket.ticketHash);
      const results = tickets.map((ticket, index) => ({
        index,
        status: 'accepted',
        ticketHash: ticket.ticketHash,
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/winning-tickets`,
    received: () => hashes.size,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
