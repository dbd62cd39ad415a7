import { z } from 'zod';

/**
 * Field names that carry secrets anywhere in our protocols (Node's wire contract, our APIs, ticket
 * records). The logger redacts them, the dashboard hides them, and job payloads must never use them.
 * Matching is by exact key name, case-insensitive, at any depth.
 */
export const SECRET_FIELD_NAMES = Object.freeze([
  'authorization',
  'bootstrapSecret',
  'bootstrap_secret',
  'heartbeatSecret',
  'heartbeat_secret',
  'credential',
  'sessionToken',
  'session_token',
  'livepeer-session-token',
  'livepeer-payment',
  'recipientRand',
  'recipient_rand',
  'sig',
  'signature',
  'senderSig',
  'seed',
  'verifierSeed',
  'password',
  'secret',
] as const);

const secretNames = new Set(SECRET_FIELD_NAMES.map((name) => name.toLowerCase()));

/** True when a key is one of {@link SECRET_FIELD_NAMES} (case-insensitive). */
export function isSecretFieldName(key: string): boolean {
  return secretNames.has(key.toLowerCase());
}

/** Registry of schemas whose values are secret; see {@link secret}. */
export const secretRegistry = z.registry<{ secret: true }>();

/** Marks a schema as secret, so tooling that walks schemas (docs, dashboards) can hide its values. */
export function secret<T extends z.ZodType>(schema: T): T {
  secretRegistry.add(schema, { secret: true });
  return schema;
}

/** Replaces, at any depth, every value whose key is a secret field name with `'[redacted]'`. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      isSecretFieldName(key) ? '[redacted]' : redactSecrets(inner),
    ]),
  );
}
