import { describe, expect, it } from '@jest/globals';
import type { SignatureVerifier } from '@sandbox/tickets';
import { rememberVerdicts } from './verdict-memo';

function countingVerifier(verdict: (sig: string) => boolean) {
  const calls: string[] = [];
  const verifier: SignatureVerifier = {
    backend: 'noble',
    size: 0,
    isSignedBy: (_message, sig) => (calls.push(sig), verdict(sig)),
  };
  return { verifier, calls };
}

describe('remembered signature verdicts', () => {
  it('answers a repeated check from memory, good and bad verdicts alike', () => {
    const { verifier, calls } = countingVerifier((sig) => sig === '0xgood');
    const remembered = rememberVerdicts(verifier, 10);
    const message = new Uint8Array([1, 2, 3]);
    expect(remembered.isSignedBy(message, '0xgood', '0xa')).toBe(true);
    expect(remembered.isSignedBy(message, '0xbad', '0xa')).toBe(false);
    expect(remembered.isSignedBy(message, '0xgood', '0xa')).toBe(true);
    expect(remembered.isSignedBy(message, '0xbad', '0xa')).toBe(false);
    expect(calls).toEqual(['0xgood', '0xbad']);
    // Another address or message is another question.
    expect(remembered.isSignedBy(message, '0xgood', '0xb')).toBe(true);
    expect(remembered.isSignedBy(new Uint8Array([9]), '0xgood', '0xa')).toBe(true);
    expect(calls).toHaveLength(4);
  });

  it('forgets the oldest verdict beyond its size', () => {
    const { verifier, calls } = countingVerifier(() => true);
    const remembered = rememberVerdicts(verifier, 2);
    const message = new Uint8Array([7]);
    for (const sig of ['0x1', '0x2', '0x3', '0x1']) remembered.isSignedBy(message, sig, '0xa');
    expect(calls).toEqual(['0x1', '0x2', '0x3', '0x1']);
  });
});
