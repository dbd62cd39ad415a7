import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findFreePort } from '@sandbox/testing';
import { makeTickets } from '../__fixtures__/tickets';
import { createRedeemerClient, type RedeemerClient } from './redeemer-client';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let handler: Handler = (_req, res) => res.end();
let server: Server;
let baseUrl: string;
const seen: { headers: IncomingMessage['headers']; body: string; url: string }[] = [];
const ticket = makeTickets(3)();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ headers: req.headers, body, url: req.url ?? '' });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
const clients: RedeemerClient[] = [];
const track = (made: RedeemerClient): RedeemerClient => (clients.push(made), made);
afterAll(async () => {
  await Promise.all(clients.map((made) => made.close?.()));
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = () =>
  track(createRedeemerClient({ baseUrl, credential: 'redeemer-credential', timeoutMs: 500 }));
const answer =
  (status: number, body?: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

describe('redeemer client: deliveries', () => {
  it('sends the ticket with the credential and the hash as idempotency key', async () => {
    handler = answer(201, { ticketHash: ticket.ticketHash, status: 'accepted' });
    await expect(client().deliver(ticket)).resolves.toEqual({ kind: 'accepted', duplicate: false });
    const request = seen.at(-1);
    expect(request?.url).toBe('/v1/tickets');
    expect(request?.headers.authorization).toBe('Bearer redeemer-credential');
    expect(request?.headers['idempotency-key']).toBe(ticket.ticketHash);
    expect(JSON.parse(request?.body ?? '')).toEqual({ ticket });
  });

  it('counts a duplicate as accepted', async () => {
    handler = answer(200, { ticketHash: ticket.ticketHash, status: 'duplicate' });
    await expect(client().deliver(ticket)).resolves.toEqual({ kind: 'accepted', duplicate: true });
  });

  it('retries a 2xx that does not acknowledge this ticket', async () => {
    handler = answer(200, { ticketHash: `0x${'00'.repeat(32)}`, status: 'accepted' });
    await expect(client().deliver(ticket)).resolves.toEqual({ kind: 'retry', error: 'bad_response' });
    handler = answer(204);
    await expect(client().deliver(ticket)).resolves.toEqual({ kind: 'retry', error: 'bad_response' });
  });

  it('treats 422, 400 and 409 as permanent', async () => {
    handler = answer(422, {
      ticketHash: ticket.ticketHash,
      status: 'rejected',
      reason: 'not_winning',
      message: 'lost',
    });
    await expect(client().deliver(ticket)).resolves.toEqual({
      kind: 'rejected',
      reason: 'not_winning',
      status: 422,
    });
    handler = answer(422, { nonsense: true });
    await expect(client().deliver(ticket)).resolves.toEqual({
      kind: 'rejected',
      reason: 'refused',
      status: 422,
    });
    handler = answer(400, { error: { code: 'invalid_request', message: 'bad' }, requestId: 'r' });
    await expect(client().deliver(ticket)).resolves.toMatchObject({ kind: 'rejected', status: 400 });
    handler = answer(409);
    await expect(client().deliver(ticket)).resolves.toMatchObject({ kind: 'rejected', status: 409 });
  });

  it('retries 5xx, 429 (with Retry-After), and other 4xx such as a wrong credential', async () => {
    handler = answer(503);
    await expect(client().deliver(ticket)).resolves.toEqual({ kind: 'retry', error: 'http_5xx' });
    handler = answer(429, undefined, { 'Retry-After': '7' });
    await expect(client().deliver(ticket)).resolves.toEqual({
      kind: 'retry',
      error: 'http_429',
      retryAfterMs: 7_000,
    });
    handler = answer(401);
    await expect(client().deliver(ticket)).resolves.toEqual({ kind: 'retry', error: 'http_4xx' });
  });

  it('retries timeouts and refused connections', async () => {
    handler = () => undefined;
    await expect(client().deliver(ticket)).resolves.toEqual({ kind: 'retry', error: 'timeout' });
    const closed = track(
      createRedeemerClient({
        baseUrl: `http://127.0.0.1:${await findFreePort()}`,
        credential: 'redeemer-credential',
        timeoutMs: 2_000,
      }),
    );
    await expect(closed.deliver(ticket)).resolves.toEqual({ kind: 'retry', error: 'connection_refused' });
  });
});

describe('redeemer client: outcomes', () => {
  it('reads a page after the cursor', async () => {
    const page = {
      outcomes: [
        { seq: 4, ticketHash: ticket.ticketHash, outcome: 'expired', decidedAt: '2025-01-01T00:00:00.000Z' },
      ],
      nextAfter: 4,
    };
    handler = answer(200, page);
    await expect(client().outcomes(3, 10)).resolves.toEqual(page);
    expect(seen.at(-1)?.url).toBe('/v1/outcomes?after=3&limit=10');
  });

  it('throws on errors and malformed pages', async () => {
    handler = answer(500);
    await expect(client().outcomes(0, 10)).rejects.toThrow('500');
    handler = answer(200, { outcomes: 'no' });
    await expect(client().outcomes(0, 10)).rejects.toThrow('malformed');
  });
});
