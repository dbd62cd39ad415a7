import { describe, expect, it } from '@jest/globals';
import { WinningTicketSchema, type WinningTicket } from '@sandbox/protocol';
import { MAX_UINT256, hexToBytes } from './bytes';
import { recoverEthSigner, signEthMessage } from './eth-signature';
import { createSignatureVerifier } from './signature-verifier';
import { buildWinningTicket } from './ticket-builder';
import { computeTicketHash } from './ticket-hash';
import { checkWinningTicket } from './winning-ticket-check';
import { vectors } from './__fixtures__/vectors';

const reference = vectors.tickets[0];
if (!reference) throw new Error('no vectors');
const referenceTicket: WinningTicket = WinningTicketSchema.parse({
  ...reference.ticket,
  ticketHash: reference.ticketHash,
  paramsExpirationBlock: '21000040',
  sig: reference.sig,
});

const keyOf = (seed: number): Uint8Array => hexToBytes(seed.toString(16).padStart(64, '0'));

function ticket(overrides: Partial<Parameters<typeof buildWinningTicket>[0]> = {}): WinningTicket {
  return buildWinningTicket({
    senderKey: keyOf(0xabc),
    recipient: '0x1de3d712f5d3103ad50e22dc1f4d3ff1559d5115',
    faceValue: 10n ** 15n,
    winProb: MAX_UINT256,
    senderNonce: 1,
    recipientRand: 12345n,
    creationRound: 4000n,
    creationRoundBlockHash: `0x${'ab'.repeat(32)}`,
    paramsExpirationBlock: 100n,
    ...overrides,
  });
}

/** Re-signs a ticket after its fields changed, so only the intended check can fail. */
function resigned(base: WinningTicket, key: Uint8Array, fields: Partial<WinningTicket>): WinningTicket {
  const changed = { ...base, ...fields };
  const ticketHash = computeTicketHash(changed);
  return { ...changed, ticketHash, sig: signEthMessage(hexToBytes(ticketHash), key) };
}

describe('checkWinningTicket', () => {
  it('accepts the independently computed reference winner and built winners', () => {
    expect(checkWinningTicket(referenceTicket)).toEqual({ ok: true });
    const built = ticket();
    expect(WinningTicketSchema.parse(built)).toEqual(built);
    expect(checkWinningTicket(built)).toEqual({ ok: true });
  });

  it('rejects a zero recipient or sender as malformed', () => {
    const zero = `0x${'00'.repeat(20)}`;
    expect(checkWinningTicket({ ...referenceTicket, recipient: zero })).toMatchObject({
      reason: 'malformed',
    });
    expect(checkWinningTicket({ ...referenceTicket, sender: zero })).toMatchObject({ reason: 'malformed' });
  });

  it('rejects a ticket whose hash does not match its fields', () => {
    for (const change of [
      { faceValue: '1000000000000001' },
      { senderNonce: '8' },
      { creationRound: '3521' },
      { creationRoundBlockHash: `0x${'00'.repeat(32)}` },
      { recipient: '0x1de3d712f5d3103ad50e22dc1f4d3ff1559d5116' },
    ]) {
      expect(checkWinningTicket({ ...referenceTicket, ...change })).toMatchObject({
        reason: 'hash_mismatch',
      });
    }
  });

  it('rejects a recipientRand that is not the preimage', () => {
    const other = `0x${'11'.repeat(32)}`;
    expect(checkWinningTicket({ ...referenceTicket, recipientRand: other })).toMatchObject({
      reason: 'recipient_rand_mismatch',
    });
  });

  it('rejects a signature by someone else, a flipped v and a high-s twin', () => {
    const base = ticket();
    const byOther = { ...base, sig: signEthMessage(hexToBytes(base.ticketHash), keyOf(0xdef)) };
    expect(checkWinningTicket(byOther)).toMatchObject({ reason: 'invalid_signature' });
    const v = base.sig.slice(-2) === '1b' ? '1c' : '1b';
    expect(checkWinningTicket({ ...base, sig: `${base.sig.slice(0, -2)}${v}` })).toMatchObject({
      reason: 'invalid_signature',
    });
    expect(checkWinningTicket({ ...referenceTicket, sig: reference.highSSig })).toMatchObject({
      reason: 'invalid_signature',
    });
  });

  it('rejects a loser', () => {
    const key = keyOf(0xabc);
    const loser = resigned(ticket(), key, { winProb: '1' });
    expect(checkWinningTicket(loser)).toMatchObject({ reason: 'not_winning' });
  });

  it('never puts a ticket value in its message', () => {
    const results = [
      checkWinningTicket({ ...referenceTicket, recipientRand: `0x${'11'.repeat(32)}` }),
      checkWinningTicket({ ...referenceTicket, sig: reference.highSSig }),
    ];
    const text = JSON.stringify(results);
    expect(text).not.toContain(referenceTicket.sig.slice(2, 18));
    expect(text).not.toContain(referenceTicket.recipientRand.slice(2, 18));
  });
});

describe.each(['libsecp256k1', 'noble'] as const)('createSignatureVerifier on %s', (backend) => {
  it('gives the same answer as recovery, on first sight and from its cache', () => {
    const verifier = createSignatureVerifier({ backend, cacheSize: 2 });
    expect(verifier.backend).toBe(backend);
    const keys = [keyOf(1), keyOf(2), keyOf(3)];
    for (let round = 0; round < 3; round += 1) {
      for (const [index, key] of keys.entries()) {
        const built = ticket({ senderKey: key, senderNonce: round * 10 + index + 1 });
        const hash = hexToBytes(built.ticketHash);
        expect(verifier.isSignedBy(hash, built.sig, built.sender)).toBe(true);
        const flipped = `${built.sig.slice(0, -2)}${built.sig.slice(-2) === '1b' ? '1c' : '1b'}`;
        expect(verifier.isSignedBy(hash, flipped, built.sender)).toBe(
          recoverEthSigner(hash, flipped) === built.sender,
        );
        const other = ticket({ senderKey: keys[(index + 1) % 3] as Uint8Array, senderNonce: 99 });
        expect(verifier.isSignedBy(hash, other.sig, built.sender)).toBe(false);
      }
    }
    expect(verifier.size).toBe(backend === 'noble' ? 2 : 0);
  });

  it('refuses malformed signatures without throwing', () => {
    const verifier = createSignatureVerifier({ backend });
    const built = ticket();
    const hash = hexToBytes(built.ticketHash);
    expect(verifier.isSignedBy(hash, '0x1234', built.sender)).toBe(false);
    expect(verifier.isSignedBy(hash, 'nothex', built.sender)).toBe(false);
    expect(verifier.isSignedBy(hash, built.sig, built.sender.toUpperCase().replace('0X', '0x'))).toBe(true);
  });
});
