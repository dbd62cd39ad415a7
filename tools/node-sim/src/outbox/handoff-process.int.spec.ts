import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WinningTicketSchema } from '@sandbox/protocol';
import { buyPaidSession, waitFor } from '@sandbox/testing';
import type { HandoffServer } from '../testing/handoff-server';
import { startHandoffServer } from '../testing/handoff-server';
import type { SimProcess } from '../testing/sim-process';
import { spawnSim } from '../testing/sim-process';

let dir: string;
let handoff: HandoffServer;
const running: SimProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'node-sim-handoff-'));
  writeFileSync(join(dir, 'bootstrap'), 'boot');
  // As `echo handoff-secret > file` writes it: the newline is not part of the token.
  writeFileSync(join(dir, 'handoff'), 'handoff-secret\n');
  handoff = await startHandoffServer();
});
afterAll(async () => {
  await Promise.all(running.map((sim) => sim.stop('SIGKILL')));
  await handoff.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(): SimProcess {
  const sim = spawnSim([
    ...[
      '--listen',
      '127.0.0.1:0',
      '--metrics-listen',
      '127.0.0.1:0',
      '--bootstrap-secret-file',
      join(dir, 'bootstrap'),
    ],
    ...['--paid', '--wei-per-usd', '1000000000000', '--ticket-win-prob', '1.0'],
    ...[
      '--handoff-url',
      handoff.url,
      '--handoff-secret-file',
      join(dir, 'handoff'),
      '--data-dir',
      join(dir, 'data'),
    ],
  ]);
  running.push(sim);
  return sim;
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** Registers a priced runner and buys a session through the simulated signer (one winning ticket). */
async function buySession(publicUrl: string): Promise<void> {
  await post(
    `${publicUrl}/runners/heartbeat`,
    { Authorization: 'boot' },
    {
      runner_id: 'paid',
      runner_url: 'http://10.0.0.1',
      app: 'echo',
      price_info: { price: 36, currency: 'usd', unit: 'hour' },
    },
  );
  expect((await buyPaidSession(publicUrl, 'paid')).status).toBe(200);
}

describe('winning-ticket hand-off across a crash', () => {
  it('writes winners before crediting, keeps them through an outage and a kill -9, and resends them', async () => {
    handoff.status = 503;
    const first = start();
    const { publicUrl } = await first.ready();
    await buySession(publicUrl);
    const pendingDir = join(dir, 'data', 'outbox', 'pending');
    expect(readdirSync(pendingDir).filter((name) => name.endsWith('.json'))).toHaveLength(1);
    await waitFor(() => handoff.batches.length >= 1, { description: 'a refused delivery attempt' });
    expect(await first.stop('SIGKILL')).toBeNull();

    handoff.status = 200;
    const second = start();
    await second.ready();
    await waitFor(() => readdirSync(pendingDir).filter((name) => name.endsWith('.json')).length === 0, {
      description: 'the restarted simulator to deliver the leftover winner',
      timeoutMs: 15_000,
    });
    const delivered = handoff.batches.at(-1);
    expect(delivered?.authorization).toBe('Bearer handoff-secret');
    expect(WinningTicketSchema.array().parse(delivered?.tickets)).toHaveLength(1);
    expect(await second.stop()).toBe(0);
  });
});
