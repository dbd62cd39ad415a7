import { describe, expect, it } from '@jest/globals';
import { WinningTicketSchema } from '@sandbox/protocol';
import { checkWinningTicket, computeRecipientRandHash, hexToBytes, MAX_UINT256 } from '@sandbox/tickets';
import { addressOfPrivateKey } from '@sandbox/tickets/testing';
import type { Ticket } from './ticket';
import { expectedValue, isSignedBySender, recipientRandHex, signTicket, toWinningTicket } from './ticket';

// The well-known test key; its winning ticket below was computed independently (libs/protocol fixture).
const senderKey = hexToBytes('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
const recipientRand = BigInt('0xef9bb082521b7bee3af84131ece48e79a28990c120850e6ea0c5df07dc539c95');
const ticket: Ticket = {
  recipient: '0x1de3d712f5d3103ad50e22dc1f4d3ff1559d5115',
  sender: '0x2c7536e3605d9c16a7a3d7b1898e529396a65c23',
  faceValue: 1_000_000_000_000_000n,
  winProb: 57896044618658097711785492504343953926634992332820282019728792003956564819967n,
  senderNonce: 7,
  recipientRandHash: computeRecipientRandHash(recipientRand),
  creationRound: 3520n,
  creationRoundBlockHash: '0x20b53acf0daefc8c6ad68c861fb3b543ca541abd101abc1edfcbf6606b838ef4',
  paramsExpirationBlock: 21_000_040n,
};
const referenceSig =
  '0x4bab4c4e487c605f93ca24367f2db04bab7bcf1bffb1265dd53fc46085331a0c18c04ba5a7131776cc9ffc95187fe13b73f6b18bb1c5cfd65377a1d6dc50f9961b';

describe('tickets', () => {
  it('reproduces the reference winner bit for bit', () => {
    expect(addressOfPrivateKey(senderKey)).toBe(ticket.sender);
    const sig = signTicket(ticket, senderKey);
    expect(sig).toBe(referenceSig);
    const winner = toWinningTicket(ticket, sig, recipientRand);
    expect(WinningTicketSchema.parse(winner)).toEqual(winner);
    expect(winner).toMatchObject({
      ticketHash: '0x132744bc4f8d940a4917e318ff28fa2d9555b7a724797f08c79e01e5f12d78c0',
      recipientRandHash: '0x8dda2b7ecd98e5fad93e4f0a07afbc42cf005aef38d16b7fea31a63882c287fc',
      recipientRand: recipientRandHex(recipientRand),
      senderNonce: '7',
    });
    // Every chain-free check of redeemWinningTicket accepts what the validator records.
    expect(checkWinningTicket(winner)).toEqual({ ok: true });
  });

  it('verifies signatures by recovering the sender', () => {
    const sig = signTicket(ticket, senderKey);
    expect(isSignedBySender(ticket, sig)).toBe(true);
    expect(
      isSignedBySender({ ...ticket, sender: ticket.sender.toUpperCase().replace('0X', '0x') }, sig),
    ).toBe(true);
    expect(isSignedBySender({ ...ticket, senderNonce: 8 }, sig)).toBe(false);
    expect(isSignedBySender(ticket, `0x${'00'.repeat(65)}`)).toBe(false);
  });

  it('computes expected value and spells recipientRand as 32 bytes', () => {
    expect(expectedValue(10n, MAX_UINT256)).toEqual({ num: 10n * MAX_UINT256, den: MAX_UINT256 });
    expect(recipientRandHex(1n)).toBe(`0x${'00'.repeat(31)}01`);
  });
});
