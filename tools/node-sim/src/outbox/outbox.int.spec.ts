import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { WinningTicket } from '@sandbox/protocol';
import { createMemoryLogger, waitFor } from '@sandbox/testing';
import type { HandoffServer } from '../testing/handoff-server';
import { startHandoffServer } from '../testing/handoff-server';
import { FileOutbox } from './file-outbox';
import { handoffEndpoint, OutboxSender } from './outbox-sender';

let dir: string;
let handoff: HandoffServer;
const senders: OutboxSender[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'node-sim-outbox-'));
  handoff = await startHandoffServer();
});
afterEach(async () => {
  await Promise.all(senders.splice(0).map((sender) => sender.stop()));
  await handoff.close();
  rmSync(dir, { recursive: true, force: true });
});

function ticket(n: number): WinningTicket {
  const hash = `0x${n.toString(16).padStart(64, '0')}`;
  return {
    ticketHash: hash,
    recipient: `0x${'1'.repeat(40)}`,
    sender: `0x${'2'.repeat(40)}`,
    faceValue: '1000',
    winProb: '5',
    senderNonce: String(n),
    recipientRandHash: hash,
    creationRound: '10',
    creationRoundBlockHash: hash,
    paramsExpirationBlock: '100',
    sig: `0x${'ab'.repeat(65)}`,
    recipientRand: hash,
  };
}

async function openOutbox(): Promise<FileOutbox> {
  const outbox = new FileOutbox(dir);
  await outbox.init();
  return outbox;
}

function startSender(outbox: FileOutbox, delays: number[] = []): OutboxSender {
  const sender = new OutboxSender({
    outbox,
    url: handoff.url,
    secret: 'handoff-credential',
    logger: createMemoryLogger().logger,
    delay: (ms) => {
      delays.push(ms);
      return new Promise((resolve) => setTimeout(resolve, 5));
    },
  });
  senders.push(sender);
  sender.start();
  return sender;
}

describe('FileOutbox', () => {
  it('stores owner-only files in receipt order and lists them oldest first', async () => {
    const outbox = await openOutbox();
    await outbox.store([ticket(3), ticket(1)]);
    await outbox.store([ticket(2)]);
    const pending = await outbox.pending(10);
    expect(pending.map((item) => item.ticket.senderNonce)).toEqual(['3', '1', '2']);
    expect(statSync(pending[0]?.file ?? '').mode & 0o777).toBe(0o600);
    expect(statSync(outbox.pendingDir).mode & 0o777).toBe(0o700);
  });
});

describe('OutboxSender', () => {
  it('sends batches of at most 100 with the credential and deletes only acknowledged winners', async () => {
    const outbox = await openOutbox();
    await outbox.store(Array.from({ length: 150 }, (_, i) => ticket(i + 1)));
    startSender(outbox);
    await waitFor(async () => (await outbox.count()) === 0, { description: 'the outbox to drain' });
    expect(handoff.batches.map((batch) => batch.tickets.length)).toEqual([100, 50]);
    expect(handoff.batches[0]?.authorization).toBe('Bearer handoff-credential');
  });

  it('keeps winners through an outage, retrying with growing backoff', async () => {
    handoff.status = 503;
    const outbox = await openOutbox();
    const delays: number[] = [];
    startSender(outbox, delays);
    await outbox.store([ticket(1)]);
    await waitFor(() => handoff.batches.length >= 4, { description: 'several refused attempts' });
    expect(await outbox.count()).toBe(1);
    expect(delays.slice(0, 3)).toEqual([250, 500, 1_000]);
    handoff.status = 200;
    await waitFor(async () => (await outbox.count()) === 0, { description: 'delivery after the outage' });
  });

  it('never deletes on a 2xx without a valid acknowledgement, and sets rejected winners aside', async () => {
    const outbox = await openOutbox();
    handoff.verdict = (t) => (t.senderNonce === '2' ? 'rejected' : 'duplicate');
    await outbox.store([ticket(1), ticket(2)]);
    startSender(outbox);
    await waitFor(async () => (await outbox.count()) === 0, { description: 'the batch to settle' });
    expect(readdirSync(outbox.rejectedDir)).toEqual([expect.stringContaining(ticket(2).ticketHash)]);
  });

  it('resends what an earlier run left behind', async () => {
    const first = await openOutbox();
    await first.store([ticket(7)]);
    const second = await openOutbox();
    startSender(second);
    await waitFor(() => handoff.batches.length === 1, { description: 'the leftover winner to be sent' });
    expect(handoff.batches[0]?.tickets[0]?.ticketHash).toBe(ticket(7).ticketHash);
  });

  it('derives the endpoint from a bare base URL', () => {
    expect(handoffEndpoint('http://127.0.0.1:7104')).toBe('http://127.0.0.1:7104/v1/winning-tickets');
    expect(handoffEndpoint('http://h:1/custom/path')).toBe('http://h:1/custom/path');
  });
});
