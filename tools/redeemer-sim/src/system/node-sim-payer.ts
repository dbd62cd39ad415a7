import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buyPaidSession, waitFor } from '@sandbox/testing';
import { computeTicketHash } from '@sandbox/tickets';
import { z } from 'zod';
import { spawnService, type ServiceProcess } from './service-process';

/** The simulator's `Livepeer-Payment` blob (base64 JSON, its own encoding of Node's protobuf). */
const PaymentBlobSchema = z.object({
  ticketParams: z.object({
    recipient: z.string(),
    faceValue: z.string(),
    winProb: z.string(),
    recipientRandHash: z.string(),
    creationRound: z.string(),
    creationRoundBlockHash: z.string(),
  }),
  sender: z.string(),
  senderParams: z.array(z.object({ senderNonce: z.int(), sig: z.string() })),
});

/** node-sim in paid mode with its outbox pointed at a handoff, and a paying client. */
export interface NodeSimPayer {
  readonly process: ServiceProcess;
  readonly publicUrl: string;
  /** Buys one session; returns the hashes of the tickets Node accepted as payment (all winners). */
  buySession(): Promise<string[]>;
  /** Restarts node-sim on the same data directory (its outbox survives). */
  restart(): Promise<void>;
}

/** Buys one session of runner `paid` through Node's paid flow; returns the hashes of its tickets. */
async function buyPaidSessionTickets(publicUrl: string, session: number): Promise<string[]> {
  const { status, payment } = await buyPaidSession(publicUrl, 'paid');
  if (status !== 200) throw new Error(`session ${session} was not paid: ${status}`);
  const blob = PaymentBlobSchema.parse(JSON.parse(Buffer.from(payment, 'base64').toString('utf8')));
  return blob.senderParams.map(({ senderNonce }) =>
    computeTicketHash({ ...blob.ticketParams, sender: blob.sender, senderNonce }),
  );
}

/**
 * Starts node-sim with `--paid --ticket-win-prob 1.0 --handoff-url <handoff>`: every ticket wins, each
 * session's first payment carries 100 tickets (36 USD/h at 1e12 wei/USD for 10 s, face value 1e9 wei).
 */
export async function startNodeSimPayer(
  dir: string,
  handoffUrl: string,
  secretFile: string,
): Promise<NodeSimPayer> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'bootstrap'), 'node-sim-bootstrap-secret');
  const args = [
    ...[
      '--listen',
      '127.0.0.1:0',
      '--metrics-listen',
      '127.0.0.1:0',
      '--bootstrap-secret-file',
      join(dir, 'bootstrap'),
    ],
    ...[
      '--paid',
      '--wei-per-usd',
      '1000000000000',
      '--ticket-win-prob',
      '1.0',
      '--ticket-face-value',
      '1000000000',
    ],
    ...['--handoff-url', handoffUrl, '--handoff-secret-file', secretFile, '--data-dir', join(dir, 'data')],
  ];
  let process = spawnService('node-sim', 'tools/node-sim/src/main.ts', {}, args);
  let publicUrl = '';
  let sessions = 0;

  const ready = async (): Promise<void> => {
    const line = await waitFor(
      () =>
        process
          .output()
          .split('\n')
          .find((text) => text.includes('"node-sim listening"')),
      { description: 'node-sim to print its listening line', timeoutMs: 30_000 },
    );
    publicUrl = (JSON.parse(line) as { publicUrl: string }).publicUrl;
    const heartbeat = await fetch(`${publicUrl}/runners/heartbeat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'node-sim-bootstrap-secret' },
      body: JSON.stringify({
        runner_id: 'paid',
        runner_url: 'http://10.0.0.1',
        app: 'echo',
        capacity: 10_000,
        price_info: { price: 36, currency: 'usd', unit: 'hour' },
      }),
    });
    if (heartbeat.status !== 200) throw new Error(`node-sim heartbeat answered ${heartbeat.status}`);
  };
  await ready();

  return {
    get process() {
      return process;
    },
    get publicUrl() {
      return publicUrl;
    },
    async buySession() {
      sessions += 1;
      return buyPaidSessionTickets(publicUrl, sessions);
    },
    async restart() {
      await process.kill9();
      process = spawnService('node-sim', 'tools/node-sim/src/main.ts', {}, args);
      await ready();
    },
  };
}
