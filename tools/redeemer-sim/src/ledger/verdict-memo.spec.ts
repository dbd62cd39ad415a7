import { describe, expect, it } from '@jest/globals';
import { createSignatureVerifier, type SignatureVerifier } from '@sandbox/tickets';
import { ticketFactory } from '../system/ticket-factory';
import { rememberChecks } from './verdict-memo';

const make = ticketFactory({ seed: 5 });

/** The real verifier, counting the signatures it is asked about. */
function countingVerifier() {
  const real = createSignatureVerifier();
  const calls: string[] = [];
  const verifier: SignatureVerifier = {
    backend: real.backend,
    size: 0,
    isSignedBy: (message, sig, address) => (calls.push(sig), real.isSignedBy(message, sig, address)),
  };
  return { verifier, calls };
}

describe('remembered ticket checks', () => {
  it('answers a repeated check from memory, good and bad verdicts alike', () => {
    const { verifier, calls } = countingVerifier();
    const check = rememberChecks(verifier, 10);
    const good = make();
    const forged = { ...make(), sig: good.sig };
    expect(check(good)).toEqual({ ok: true });
    expect(check(forged)).toMatchObject({ ok: false, reason: 'invalid_signature' });
    // The same fields in another object (as read back from the store) are the same question.
    expect(check({ ...good })).toEqual({ ok: true });
    expect(check(forged)).toMatchObject({ ok: false, reason: 'invalid_signature' });
    expect(calls).toEqual([good.sig, good.sig]);
  });

  it('checks again when any field differs', () => {
    const { verifier } = countingVerifier();
    const check = rememberChecks(verifier, 10);
    const good = make();
    expect(check(good)).toEqual({ ok: true });
    expect(check({ ...good, recipientRand: `0x${'00'.repeat(31)}01` })).toMatchObject({
      ok: false,
      reason: 'recipient_rand_mismatch',
    });
    expect(check({ ...good, faceValue: '1001' })).toMatchObject({ ok: false, reason: 'hash_mismatch' });
  });

  it('forgets the oldest verdict beyond its size', () => {
    const { verifier, calls } = countingVerifier();
    const check = rememberChecks(verifier, 2);
    const [one, two, three] = [make(), make(), make()];
    for (const item of [one, two, three, one]) check(item);
    expect(calls).toEqual([one.sig, two.sig, three.sig, one.sig]);
  });
});
