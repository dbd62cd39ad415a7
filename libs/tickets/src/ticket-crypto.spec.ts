import { describe, expect, it } from '@jest/globals';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { bytesToHex, hexToBytes, keccak256 } from './bytes';
import { addressOfPrivateKey, ethSignedMessageHash, recoverEthSigner, signEthMessage } from './eth-signature';
import { createSignatureVerifier } from './signature-verifier';
import { computeRecipientRandHash, computeTicketHash, ticketAuxData } from './ticket-hash';
import { isWinningTicket } from './winning-ticket-check';
import { vectors } from './__fixtures__/vectors';

describe('keccak256 on published values', () => {
  it('matches the well-known digests of "" and "abc"', () => {
    expect(bytesToHex(keccak256(new Uint8Array()))).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
    expect(bytesToHex(keccak256(utf8ToBytes('abc')))).toBe(
      '0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
    );
  });
});

describe('the published web3.js signing example', () => {
  const { published } = vectors;

  it('derives the address, the message hash and the very signature', () => {
    const key = hexToBytes(published.privateKey);
    const message = utf8ToBytes(published.message);
    expect(addressOfPrivateKey(key)).toBe(published.address);
    expect(bytesToHex(ethSignedMessageHash(message))).toBe(published.messageHash);
    expect(signEthMessage(message, key)).toBe(published.signature);
    expect(recoverEthSigner(message, published.signature)).toBe(published.address);
  });
});

describe.each(vectors.tickets)('ticket vector: $name', (vector) => {
  const hash = hexToBytes(vector.ticketHash);

  it('packs and hashes the ticket as getTicketHash does', () => {
    const aux = ticketAuxData(vector.ticket.creationRound, vector.ticket.creationRoundBlockHash);
    expect(vector.packed.endsWith(bytesToHex(aux).slice(2))).toBe(true);
    expect(computeTicketHash(vector.ticket)).toBe(vector.ticketHash);
    expect(computeRecipientRandHash(vector.ticket.recipientRand)).toBe(vector.ticket.recipientRandHash);
  });

  it('signs deterministically and recovers the sender', () => {
    const key = hexToBytes(vector.privateKey);
    expect(addressOfPrivateKey(key)).toBe(vector.ticket.sender);
    expect(bytesToHex(ethSignedMessageHash(hash))).toBe(vector.ethSignedMessageHash);
    expect(signEthMessage(hash, key)).toBe(vector.sig);
    expect(recoverEthSigner(hash, vector.sig)).toBe(vector.ticket.sender);
  });

  it('refuses the high-s twin that plain ecrecover would accept', () => {
    expect(vector.highSRecoversTo).toBe(vector.ticket.sender);
    expect(recoverEthSigner(hash, vector.highSSig)).toBeUndefined();
  });

  it('applies the win test as the contract does', () => {
    expect(isWinningTicket(vector.sig, vector.ticket.recipientRand, vector.ticket.winProb)).toBe(vector.wins);
    expect(isWinningTicket(vector.sig, vector.ticket.recipientRand, BigInt(vector.winValue))).toBe(false);
    if (BigInt(vector.winValue) < (1n << 256n) - 1n) {
      expect(isWinningTicket(vector.sig, vector.ticket.recipientRand, BigInt(vector.winValue) + 1n)).toBe(
        true,
      );
    }
  });
});

describe('signature rules', () => {
  const vector = vectors.tickets[0];
  if (!vector) throw new Error('no vectors');
  const hash = hexToBytes(vector.ticketHash);
  const sig = vector.sig.slice(2);

  it('refuses v other than 27 or 28, bad lengths and zero r or s', () => {
    expect(recoverEthSigner(hash, `0x${sig.slice(0, 128)}01`)).toBeUndefined();
    expect(recoverEthSigner(hash, `0x${sig.slice(0, 128)}00`)).toBeUndefined();
    expect(recoverEthSigner(hash, `0x${sig.slice(0, 128)}`)).toBeUndefined();
    expect(recoverEthSigner(hash, `0x${'00'.repeat(32)}${sig.slice(64)}`)).toBeUndefined();
    expect(
      recoverEthSigner(hash, `0x${sig.slice(0, 64)}${'00'.repeat(32)}${sig.slice(128)}`),
    ).toBeUndefined();
    expect(recoverEthSigner(hash, '0xzz')).toBeUndefined();
  });

  it('recovers another address when v is flipped', () => {
    const flipped = `0x${sig.slice(0, 128)}${sig.slice(128) === '1b' ? '1c' : '1b'}`;
    const other = recoverEthSigner(hash, flipped);
    expect(other === undefined || other !== vector.ticket.sender).toBe(true);
  });
});

describe.each(['libsecp256k1', 'noble'] as const)('the verifier on %s against the vectors', (backend) => {
  const verifier = createSignatureVerifier({ backend });

  it.each(vectors.tickets)('accepts $name from its sender only, and refuses its high-s twin', (vector) => {
    const hash = hexToBytes(vector.ticketHash);
    expect(verifier.isSignedBy(hash, vector.sig, vector.ticket.sender)).toBe(true);
    expect(verifier.isSignedBy(hash, vector.sig, `0x${'11'.repeat(20)}`)).toBe(false);
    expect(verifier.isSignedBy(hash, vector.highSSig, vector.ticket.sender)).toBe(false);
  });

  it('accepts the published example and refuses a v other than 27/28, zero r or s and bad lengths', () => {
    const { published } = vectors;
    const message = utf8ToBytes(published.message);
    expect(verifier.isSignedBy(message, published.signature, published.address)).toBe(true);
    const vector = vectors.tickets[0];
    if (!vector) throw new Error('no vectors');
    const hash = hexToBytes(vector.ticketHash);
    const sig = vector.sig.slice(2);
    const sender = vector.ticket.sender;
    for (const bad of [
      `0x${sig.slice(0, 128)}01`,
      `0x${sig.slice(0, 128)}00`,
      `0x${sig.slice(0, 128)}`,
      `0x${'00'.repeat(32)}${sig.slice(64)}`,
      `0x${sig.slice(0, 64)}${'00'.repeat(32)}${sig.slice(128)}`,
      `0x${'ff'.repeat(32)}${sig.slice(64)}`,
    ]) {
      expect(verifier.isSignedBy(hash, bad, sender)).toBe(false);
    }
  });
});
