import { bytesToHex, keccak256 } from '@sandbox/tickets';

/**
 * EIP-55 mixed-case form of an address (what Go's `Address.Hex()` prints): a hex letter is upper case
 * when the matching nibble of keccak256(lowercase hex address) is 8 or more.
 */
export function checksumAddress(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/u, '');
  const digest = bytesToHex(keccak256(new TextEncoder().encode(lower))).slice(2);
  const mixed = [...lower].map((char, i) =>
    Number.parseInt(digest[i] ?? '0', 16) >= 8 ? char.toUpperCase() : char,
  );
  return `0x${mixed.join('')}`;
}
