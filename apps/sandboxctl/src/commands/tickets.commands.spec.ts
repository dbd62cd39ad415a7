// The ticket summaries against a scripted stand-in for redemption-handoff (the real service answers in
// sandboxctl.int.spec.ts, with no tickets; these check the arithmetic and alerts on a populated one).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TicketListResponseSchema, type TicketRecordView } from '@sandbox/protocol';
import { findFreePort } from '@sandbox/testing';
import { runWith } from '../__fixtures__/memory-io';
import { startScriptedServer, type ScriptedServer } from '../__fixtures__/scripted-server';

const now = Date.now();
const base = {
  recipient: '0x1de3d712f5d3103ad50e22dc1f4d3ff1559d5115',
  sender: '0x2c7536e3605d9c16a7a3d7b1898e529396a65c23',
  faceValue: '1000000000000000',
  winProb: '57896044618658097711785492504343953926634992332820282019728792003956564819967',
  senderNonce: '7',
  recipientRandHash: '0x8dda2b7ecd98e5fad93e4f0a07afbc42cf005aef38d16b7fea31a63882c287fc',
  creationRound: '3520',
  creationRoundBlockHash: '0x20b53acf0daefc8c6ad68c861fb3b543ca541abd101abc1edfcbf6606b838ef4',
  paramsExpirationBlock: '21000040',
  receivedAt: new Date(now - 60_000).toISOString(),
  attempts: 0,
};
const ticket = (
  hash: string,
  state: TicketRecordView['state'],
  deadlineInMs: number,
  extra = {},
): TicketRecordView => ({
  ...base,
  ticketHash: `0x${hash.repeat(64)}`,
  state,
  deadlineAt: new Date(now + deadlineInMs).toISOString(),
  ...extra,
});
const tickets = {
  received: [ticket('a', 'received', 30 * 60_000)],
  delivering: [
    ticket('b', 'delivering', 5 * 3_600_000 + 30_000, { attempts: 3, lastError: 'connection_refused' }),
  ],
  accepted: [ticket('c', 'accepted', 9 * 3_600_000)],
};

let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer(await findFreePort(), (_method, path) => {
    const url = new URL(path, 'http://x');
    if (url.pathname === '/v1/liabilities')
      return {
        status: 200,
        body: {
          payers: [{ sender: base.sender, pendingFaceValue: '3000000000000000', tickets: 3, undelivered: 2 }],
          totalPendingFaceValue: '3000000000000000',
          asOf: new Date(now).toISOString(),
        },
      };
    const state = url.searchParams.get('state') as keyof typeof tickets | null;
    const list = state ? (tickets[state] ?? []) : Object.values(tickets).flat();
    return { status: 200, body: { tickets: list } };
  });
});

afterAll(async () => {
  await server.close();
});

const run = (...argv: string[]) =>
  runWith([...argv, '--server', `redemption-handoff=${server.url}`], {
    env: { SANDBOXCTL_CONFIG: '/nonexistent/config.yaml' },
  });

describe('tickets', () => {
  it('status sums what is at risk and raises alerts for near deadlines and failing deliveries', async () => {
    const result = await run('tickets', 'status');
    expect(result.stdout).toContain('Pending winners:    3 (2 not yet delivered)');
    expect(result.stdout).toContain('Face value at risk: 0.003 ETH (3000000000000000 wei)');
    expect(result.stdout).toMatch(/Nearest deadline: {3}\S+ \(in (29|30)m\)/);
    expect(result.stdout).toContain('1 undelivered ticket(s) reach their deadline within 60m');
    expect(result.stdout).toContain('1 ticket(s) failing delivery (connection_refused)');
    const summary = JSON.parse((await run('tickets', 'status', '-o', 'json')).stdout) as Record<
      string,
      unknown
    >;
    expect(summary).toMatchObject({
      pendingWinners: 3,
      undelivered: 2,
      faceValueAtRiskWei: '3000000000000000',
    });
  });

  it('list prints a table with state and deadline, and the service document with -o json', async () => {
    const table = await run('tickets', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(
      /^TICKET\s+STATE\s+SENDER\s+FACE-VALUE\s+DEADLINE\s+ATTEMPTS\s+LAST-ERROR$/,
    );
    expect(table.stdout).toMatch(
      /0xbbbbbbbbbbbb…\s+delivering\s+0x2c7536e3605d…\s+0\.001 ETH\s+in 5h\s+3\s+connection_refused/,
    );
    const body = TicketListResponseSchema.parse(
      JSON.parse((await run('tickets', 'list', '-o', 'json')).stdout),
    );
    expect(body.tickets).toHaveLength(3);
    expect(server.requests.at(-1)?.path).toBe('/v1/winning-tickets?limit=100');
    expect((await run('tickets', 'list', '--limit', '0')).code).toBe(2);
  });
});
