import { describe, expect, it } from '@jest/globals';
import { computeTicketHash, createSignatureVerifier, hexToBytes } from '@sandbox/tickets';
import { signEthMessage } from '@sandbox/tickets/testing';
import { fixedTicketWindows, roundTicketWindows } from '../chain/ticket-window';
import { makeTickets, RECIPIENT } from '../__fixtures__/tickets';
import { createTicketScreen } from './ticket-screen';

const make = makeTickets(7);
const windows = roundTicketWindows({ blockMs: 1_000, roundBlocks: 10, genesisMs: 0, validityRounds: 2 });
const screen = createTicketScreen({ verifier: createSignatureVerifier(), windows, recipient: RECIPIENT });
// Round 100 spans [1_000_000, 1_010_000): a round-100 ticket is valid until 1_020_000.
const NOW = 1_005_000;

describe('ticket screen', () => {
  it('passes a valid winner with its redemption window', () => {
    const ticket = make();
    expect(screen(ticket, 3, NOW)).toEqual({
      kind: 'valid',
      value: { index: 3, ticket, window: { startMs: 1_000_000, deadlineMs: 1_020_000 } },
    });
  });

  it('rejects malformed tickets with field paths, echoing only a well-formed hash', () => {
    const ticket = make();
    const verdict = screen({ ...ticket, faceValue: '-1', sig: 'x' }, 0, NOW);
    expect(verdict).toMatchObject({
      kind: 'rejected',
      result: { index: 0, status: 'rejected', reason: 'malformed', ticketHash: ticket.ticketHash },
    });
    if (verdict.kind !== 'rejected') throw new Error('expected a rejection');
    expect(verdict.result.issues?.map((issue) => issue.path)).toEqual(['faceValue', 'sig']);
    expect(screen(null, 1, NOW)).toMatchObject({ result: { reason: 'malformed' } });
    expect(screen({ ticketHash: 'nothex' }, 1, NOW)).not.toHaveProperty('result.ticketHash');
    const zeroSender = { ...ticket, sender: `0x${'00'.repeat(20)}` };
    expect(screen(zeroSender, 2, NOW)).toMatchObject({ result: { reason: 'malformed' } });
  });

  it('rejects each failed check with its reason', () => {
    const ticket = make();
    const cases: [unknown, string][] = [
      [{ ...ticket, recipient: `0x${'12'.repeat(20)}` }, 'recipient_mismatch'],
      [{ ...ticket, senderNonce: '99999' }, 'hash_mismatch'],
      [{ ...ticket, recipientRand: `0x${'34'.repeat(32)}` }, 'recipient_rand_mismatch'],
      [
        { ...ticket, sig: `${ticket.sig.slice(0, -2)}${ticket.sig.endsWith('1b') ? '1c' : '1b'}` },
        'invalid_signature',
      ],
    ];
    for (const [element, reason] of cases) {
      expect(screen(element, 0, NOW)).toMatchObject({
        kind: 'rejected',
        result: { reason, ticketHash: ticket.ticketHash },
      });
    }
  });

  it('rejects a loser', () => {
    const ticket = make({ payer: 1 });
    const changed = { ...ticket, winProb: '1' };
    const ticketHash = computeTicketHash(changed);
    const key = hexToBytes((7 * 16 + 2).toString(16).padStart(64, '0'));
    const loser = { ...changed, ticketHash, sig: signEthMessage(hexToBytes(ticketHash), key) };
    expect(loser.sender).toBe(ticket.sender);
    expect(screen(loser, 0, NOW)).toMatchObject({ result: { reason: 'not_winning' } });
  });

  it('rejects a ticket past its window only when a round view is configured', () => {
    const ticket = make({ creationRound: 99n });
    expect(screen(ticket, 0, 1_010_000)).toMatchObject({ result: { reason: 'expired' } });
    expect(screen(make({ creationRound: 99n }), 0, 1_009_999)).toMatchObject({ kind: 'valid' });
    const without = createTicketScreen({
      verifier: createSignatureVerifier(),
      windows: fixedTicketWindows(500),
    });
    expect(without(ticket, 0, 1_010_000)).toMatchObject({
      kind: 'valid',
      value: { window: { startMs: 1_010_000, deadlineMs: 1_010_500 } },
    });
  });
});
