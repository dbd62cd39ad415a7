import type { V1NetworkPolicy } from '@kubernetes/client-node';

const unset = (value: unknown) =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0);

/**
 * The spec as plain JSON, keys sorted, without unset fields or empty lists (the API server does not
 * store `egress: []`), and with the client's `_from` spelled `from` as on the wire, so a policy read
 * back from a list or a watch compares equal to the one we built.
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, inner]) => !unset(inner))
    .map(([key, inner]): [string, unknown] => [key === '_from' ? 'from' : key, canonical(inner)])
    .sort(([a], [b]) => a.localeCompare(b));
  return Object.fromEntries(entries);
}

/**
 * True when the policy in the cluster is missing or its spec is not the one we built: someone deleted
 * it, or edited its selectors, peers or ranges. Labels and annotations others add are not drift.
 */
export function networkPolicyDrifted(actual: V1NetworkPolicy | undefined, desired: V1NetworkPolicy): boolean {
  if (!actual) return true;
  return JSON.stringify(canonical(actual.spec)) !== JSON.stringify(canonical(desired.spec));
}
