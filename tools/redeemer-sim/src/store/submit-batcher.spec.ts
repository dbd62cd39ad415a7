import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { hexToBytes, MAX_UINT256 } from '@sandbox/tickets';
import { buildWinningTicket } from '@sandbox/tickets/testing';
import { SimStore } from './sim-store';
import { createSubmitBatcher } from './submit-batcher';

const dir = mkdtempSync(join(tmpdir(), 'submit-batcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ticket = (nonce: number) =>
  buildWinningTicket({
    senderKey: hexToBytes(`0x${'00'.repeat(31)}09`),
    recipient: `0x${'1d'.repeat(20)}`,
    faceValue: 5n,
    winProb: MAX_UINT256,
    senderNonce: nonce,
    recipientRand: BigInt(nonce),
    creationRound: 1n,
    creationRoundBlockHash: `0x${'ab'.repeat(32)}`,
    paramsExpirationBlock: 1n,
  });

/** Counts the transactions the batcher opens. */
function countingStore(path: string): { store: SimStore; batches: number[] } {
  const store = new SimStore(path);
  const batches: number[] = [];
  const submitMany = store.submitMany.bind(store);
  store.submitMany = (deliveries) => {
    batches.push(deliveries.length);
    return submitMany(deliveries);
  };
  return { store, batches };
}

describe('createSubmitBatcher', () => {
  it('stores concurrent deliveries in one transaction, answering each as submit would', async () => {
    const path = join(dir, 'a.sqlite');
    const { store, batches } = countingStore(path);
    const submit = createSubmitBatcher(store);
    const [one, two] = [ticket(1), ticket(2)];
    const results = await Promise.all([
      submit(one, 1),
      submit(two, 2),
      submit(one, 3),
      submit({ ...two, paramsExpirationBlock: '9' }, 4),
    ]);
    expect(results).toEqual(['accepted', 'accepted', 'duplicate', 'conflict']);
    expect(batches).toEqual([4]);
    expect(await submit(ticket(3), 5)).toBe('accepted');
    expect(batches).toEqual([4, 1]);
    store.close();
    const reopened = new SimStore(path);
    expect(reopened.allTickets().map((row) => row.deliveries)).toEqual([2, 1, 1]);
    reopened.close();
  });

  it('fails every delivery of a batch whose transaction fails, and stores none of them', async () => {
    const { store } = countingStore(join(dir, 'b.sqlite'));
    const submit = createSubmitBatcher(store);
    store.close();
    const batch = [submit(ticket(1), 1), submit(ticket(2), 2)];
    for (const result of batch) await expect(result).rejects.toThrow();
    const reopened = new SimStore(join(dir, 'b.sqlite'));
    expect(reopened.allTickets()).toEqual([]);
    reopened.close();
  });
});
