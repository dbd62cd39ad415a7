import { createHash } from 'node:crypto';
import type { AppSpec } from '@sandbox/protocol';

/** JSON with object keys sorted at every depth, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The spec fields an instance is built from and advertised with. Replica counts are left out, so
 * scaling never replaces running instances; any other change does.
 */
export function templateOf(spec: AppSpec): unknown {
  const { instances, ...rest } = spec;
  const shape =
    instances.kind === 'reusable'
      ? { kind: instances.kind, capacity: instances.capacity }
      : { kind: instances.kind };
  return { ...rest, instances: shape };
}

/** 16 hex digits of SHA-256 over the canonical template. Persistent: stored on every instance. */
export function templateHash(spec: AppSpec): string {
  return createHash('sha256')
    .update(canonicalJson(templateOf(spec)))
    .digest('hex')
    .slice(0, 16);
}
