import { describe, expect, it } from '@jest/globals';
import type { WinningTicket } from '@sandbox/protocol';
import { checkWinningTicket, createSignatureVerifier, hexToBytes, MAX_UINT256 } from '@sandbox/tickets';
import { buildWinningTicket } from '@sandbox/tickets/testing';
import { decideRedemption, type ChainView } from './redemption';

const ticket = buildWinningTicket({
  senderKey: hexToBytes(`0x${'00'.repeat(31)}42`),
  recipient: `0x${'1d'.repeat(20)}`,
  faceValue: 1_000n,
  winProb: MAX_UINT256,
  senderNonce: 1,
  recipientRand: 99n,
  creationRound: 10n,
  creationRoundBlockHash: `0x${'ab'.repeat(32)}`,
  paramsExpirationBlock: 500n,
});
const chain: ChainView = {
  block: 600n,
  round: 11n,
  validityRounds: 2n,
  waitForParamsExpiry: true,
  isUsed: false,
  funds: { deposit: 600n, reserve: 10_000n, withdrawRound: undefined },
};
const signatures = createSignatureVerifier();
const check = (checked: WinningTicket) => checkWinningTicket(checked, signatures);

describe('decideRedemption', () => {
  it('redeems, paying from the deposit first and then the reserve', () => {
    expect(decideRedemption(ticket, chain, check)).toMatchObject({
      outcome: 'redeemed',
      paidWei: '1000',
      submitted: true,
      funds: { sender: ticket.sender, deposit: 0n, reserve: 9_600n },
    });
  });

  it('waits while the params are still accepted, unless told not to', () => {
    expect(decideRedemption(ticket, { ...chain, block: 499n }, check)).toBeUndefined();
    expect(
      decideRedemption(ticket, { ...chain, block: 499n, waitForParamsExpiry: false }, check),
    ).toMatchObject({
      outcome: 'redeemed',
    });
  });

  it('reports used and expired tickets without submitting', () => {
    expect(decideRedemption(ticket, { ...chain, isUsed: true }, check)).toEqual({
      outcome: 'already_used',
      submitted: false,
    });
    expect(decideRedemption(ticket, { ...chain, round: 12n }, check)).toMatchObject({
      outcome: 'expired',
      submitted: false,
    });
  });

  it('rejects what the contract would revert on', () => {
    expect(decideRedemption({ ...ticket, faceValue: '1001' }, chain, check)).toMatchObject({
      outcome: 'rejected',
      reason: 'hash_mismatch',
      submitted: false,
    });
    const unlocked = { ...chain, funds: { ...chain.funds, withdrawRound: 11n } };
    expect(decideRedemption(ticket, unlocked, check)).toMatchObject({
      outcome: 'rejected',
      reason: 'sender is unlocked',
    });
  });

  it('waits while the sender cannot cover the face value (all-or-nothing)', () => {
    expect(
      decideRedemption(
        ticket,
        { ...chain, funds: { deposit: 500n, reserve: 499n, withdrawRound: undefined } },
        check,
      ),
    ).toBeUndefined();
  });
});
