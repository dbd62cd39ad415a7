import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { hexToBytes, MAX_UINT256 } from '@sandbox/tickets';
import { buildWinningTicket } from '@sandbox/tickets/testing';
import { SimStore } from './sim-store';

const dir = mkdtempSync(join(tmpdir(), 'sim-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ticket = (nonce: number) =>
  buildWinningTicket({
    senderKey: hexToBytes(`0x${'00'.repeat(31)}07`),
    recipient: `0x${'1d'.repeat(20)}`,
    faceValue: 5n,
    winProb: MAX_UINT256,
    senderNonce: nonce,
    recipientRand: BigInt(nonce),
    creationRound: 1n,
    creationRoundBlockHash: `0x${'ab'.repeat(32)}`,
    paramsExpirationBlock: 1n,
  });

describe('SimStore', () => {
  it('dedupes deliveries by hash, counts them, and refuses other contents under a known hash', () => {
    const store = new SimStore(join(dir, 'a', 'redeemer.sqlite'));
    const first = ticket(1);
    expect(store.submit(first, 10)).toBe('accepted');
    expect(store.submit(first, 11)).toBe('duplicate');
    expect(store.submit({ ...first, paramsExpirationBlock: '2' }, 12)).toBe('conflict');
    expect(store.ticket(first.ticketHash)).toMatchObject({
      deliveries: 2,
      submissions: 0,
      outcome: undefined,
    });
    expect(statSync(join(dir, 'a', 'redeemer.sqlite')).mode & 0o777).toBe(0o600);
    store.close();
  });

  it('records one decision per ticket, with its submission, used mark and funds, and survives a reopen', () => {
    const path = join(dir, 'b.sqlite');
    const store = new SimStore(path);
    const [one, two] = [ticket(1), ticket(2)];
    store.submit(one, 1);
    store.submit(two, 2);
    const decision = {
      hash: one.ticketHash,
      outcome: 'redeemed' as const,
      paidWei: '5',
      submitted: true,
      funds: { sender: one.sender, deposit: 0n, reserve: 95n },
    };
    expect(store.decide(decision, 3)).toBe(true);
    expect(store.decide(decision, 4)).toBe(false);
    expect(store.decide({ hash: two.ticketHash, outcome: 'expired', submitted: false }, 5)).toBe(true);
    store.close();

    const reopened = new SimStore(path);
    expect(reopened.ticket(one.ticketHash)).toMatchObject({ submissions: 1, outcome: 'redeemed' });
    expect(reopened.isUsed(one.ticketHash)).toBe(true);
    expect(reopened.isUsed(two.ticketHash)).toBe(false);
    expect(reopened.funds(one.sender, { deposit: 1n, reserve: 1n, withdrawRound: undefined })).toEqual({
      deposit: 0n,
      reserve: 95n,
      withdrawRound: undefined,
    });
    expect(reopened.outcomesAfter(0, 10).map((outcome) => [outcome.seq, outcome.outcome])).toEqual([
      [1, 'redeemed'],
      [2, 'expired'],
    ]);
    expect(reopened.outcomesAfter(1, 10)).toHaveLength(1);
    expect(reopened.pending(10)).toEqual([]);
    reopened.close();
  });
});
