import { z } from 'zod';

/**
 * Lowercase `0x`-prefixed hex of exactly `bytes` bytes. Lowercase only, so one value has one spelling
 * and string equality is byte equality (ticket hashes are idempotency keys and job ids).
 * Returns a new schema each call, so marking one with `secret()` never marks another.
 */
export function hexBytesSchema(bytes: number) {
  return z.string().regex(new RegExp(`^0x[0-9a-f]{${bytes * 2}}$`), {
    message: `must be 0x followed by ${bytes * 2} lowercase hex digits (${bytes} bytes)`,
  });
}

/**
 * An unsigned integer of at most `bits` bits as a canonical decimal string (`"0"`, `"1000"`; no sign,
 * leading zeros or exponent), so uint256 values survive JSON exactly.
 * Returns a new schema each call.
 */
export function uintDecimalSchema(bits: number) {
  const max = (1n << BigInt(bits)) - 1n;
  const digits = max.toString().length;
  return z
    .string()
    .regex(new RegExp(`^(?:0|[1-9][0-9]{0,${digits - 1}})$`), {
      message: 'must be a decimal integer string without sign or leading zeros',
      abort: true,
    })
    .refine((value) => BigInt(value) <= max, { message: `must fit in ${bits} bits` });
}

/** An Ethereum address: 20 bytes, lowercase hex. */
export const AddressSchema = hexBytesSchema(20);
export type Address = z.infer<typeof AddressSchema>;

/** A 32-byte value (hashes, block hashes), lowercase hex. */
export const Bytes32Schema = hexBytesSchema(32);

/**
 * The on-chain ticket hash, keccak256 of the packed ticket fields: the idempotency key of a winning
 * ticket everywhere (records, job ids, deliveries to the redeemer).
 */
export const TicketHashSchema = hexBytesSchema(32);
export type TicketHash = z.infer<typeof TicketHashSchema>;

/** A uint256 as a decimal string. */
export const Uint256DecimalSchema = uintDecimalSchema(256);
