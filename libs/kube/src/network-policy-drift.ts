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

/**
 * What to server-side apply to make `actual` the `desired` policy. An empty top-level rule list
 * (`egress: []` of an app without egress) is sent only to take back a list someone else filled: the
 * API server stores an empty list as absent, so sending it every time would make every apply a real
 * write (a new generation), and a retried apply would no longer change nothing.
 */
export function networkPolicyApplyBody(
  desired: V1NetworkPolicy,
  actual: V1NetworkPolicy | undefined,
): V1NetworkPolicy {
  if (!desired.spec) return desired;
  const spec = { ...desired.spec };
  for (const list of ['ingress', 'egress'] as const) {
    if (spec[list]?.length === 0 && (actual?.spec?.[list]?.length ?? 0) === 0) delete spec[list];
  }
  return { ...desired, spec };
}
