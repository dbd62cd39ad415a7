import { bytesToHex, hexToBytes, keccak256, uint256Bytes } from './bytes';

/**
 * The fields of a ticket that its on-chain hash covers, with integers as decimal strings or bigints
 * (a `WinningTicket` of `@sandbox/protocol` fits as it is).
 */
export interface TicketHashFields {
  readonly recipient: string;
  readonly sender: string;
  readonly faceValue: string | bigint;
  readonly winProb: string | bigint;
  readonly senderNonce: string | bigint | number;
  readonly recipientRandHash: string;
  readonly creationRound: string | bigint;
  readonly creationRoundBlockHash: string;
}

/** A ticket's `auxData`: the creation round as 32 big-endian bytes, then the round's block hash. */
export function ticketAuxData(creationRound: string | bigint, creationRoundBlockHash: string): Uint8Array {
  const blockHash = hexToBytes(creationRoundBlockHash);
  if (blockHash.length !== 32) throw new RangeError('creationRoundBlockHash must be 32 bytes');
  const aux = new Uint8Array(64);
  aux.set(uint256Bytes(BigInt(creationRound)), 0);
  aux.set(blockHash, 32);
  return aux;
}

function fixedBytes(hex: string, length: number, field: string): Uint8Array {
  const bytes = hexToBytes(hex);
  if (bytes.length !== length) throw new RangeError(`${field} must be ${length} bytes`);
  return bytes;
}

/**
 * The ticket hash exactly as the TicketBroker's `getTicketHash` computes it:
 * `keccak256(abi.encodePacked(recipient, sender, faceValue, winProb, senderNonce, recipientRandHash,
 * auxData))`, with the nonce widened to uint256. Returns lowercase `0x` hex. Throws `RangeError` when
 * a field has the wrong size.
 */
export function computeTicketHash(fields: TicketHashFields): string {
  return bytesToHex(
    keccak256(
      fixedBytes(fields.recipient, 20, 'recipient'),
      fixedBytes(fields.sender, 20, 'sender'),
      uint256Bytes(BigInt(fields.faceValue)),
      uint256Bytes(BigInt(fields.winProb)),
      uint256Bytes(BigInt(fields.senderNonce)),
      fixedBytes(fields.recipientRandHash, 32, 'recipientRandHash'),
      ticketAuxData(fields.creationRound, fields.creationRoundBlockHash),
    ),
  );
}

/** keccak256 of `recipientRand` as a 32-byte big-endian uint256 (`abi.encodePacked(uint256)`). */
export function computeRecipientRandHash(recipientRand: string | bigint): string {
  const value = typeof recipientRand === 'bigint' ? recipientRand : BigInt(recipientRand);
  return bytesToHex(keccak256(uint256Bytes(value)));
}
