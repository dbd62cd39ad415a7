import type { z } from 'zod';
import { InstanceIdSchema } from './ids.schema';

/**
 * The ids instance-manager mints for every instance, whichever driver runs it: ten lowercase letters or
 * digits. Short enough for the local driver's host objects (a Linux interface name is at most 15 bytes:
 * prefix (4) + `h` + id) and for a pod name `<app>-<id>` (app at most 40) to stay a DNS label.
 * Persistent: the local driver finds a running instance's host objects again by parsing this format.
 */
export const INSTANCE_ID_LENGTH = 10;
/** The format as a regular-expression fragment, for parsers that find an id inside a longer name. */
export const INSTANCE_ID_SOURCE = `[a-z0-9]{${INSTANCE_ID_LENGTH}}`;
/** A whole string in the minted format. */
export const INSTANCE_ID_PATTERN = new RegExp(`^${INSTANCE_ID_SOURCE}$`);

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A wire instance id ({@link InstanceIdSchema}) that is also in the minted format. */
export const MintedInstanceIdSchema = InstanceIdSchema.regex(INSTANCE_ID_PATTERN, {
  message: 'must be ten lowercase letters or digits',
});

/** Random bytes; Web Crypto, so this library needs no Node module. */
const randomBytes = (length: number): Uint8Array => globalThis.crypto.getRandomValues(new Uint8Array(length));

/** A fresh random instance id in the minted format. */
export function newInstanceId(random: (length: number) => Uint8Array = randomBytes): string {
  return Array.from(random(INSTANCE_ID_LENGTH), (byte) => ALPHABET[byte % ALPHABET.length]).join('');
}

/** The id when the text is one in the minted format, else undefined. */
export function parseInstanceId(text: string): string | undefined {
  return INSTANCE_ID_PATTERN.test(text) ? text : undefined;
}

export type MintedInstanceId = z.infer<typeof MintedInstanceIdSchema>;
