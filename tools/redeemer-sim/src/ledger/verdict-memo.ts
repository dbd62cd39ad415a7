import { bytesToHex, type SignatureVerifier } from '@sandbox/tickets';

/**
 * The verifier with its last `size` verdicts remembered. The simulator checks each ticket's signature
 * when it is delivered and again when it is redeemed (as the contract would); a verdict depends only on
 * message, signature and address, so the second check can reuse the first instead of another recovery.
 */
export function rememberVerdicts(verifier: SignatureVerifier, size: number): SignatureVerifier {
  const verdicts = new Map<string, boolean>();
  return {
    backend: verifier.backend,
    get size() {
      return verifier.size;
    },
    isSignedBy(message, sig, address) {
      const key = `${bytesToHex(message)}|${sig}|${address}`;
      const known = verdicts.get(key);
      if (known !== undefined) return known;
      const verdict = verifier.isSignedBy(message, sig, address);
      verdicts.set(key, verdict);
      // Map keeps insertion order: the first key is the oldest.
      if (verdicts.size > size) verdicts.delete(verdicts.keys().next().value as string);
      return verdict;
    },
  };
}
