import { createHash } from 'node:crypto';

/** A lowercase DNS label: fits Node's runner id rule and its stricter rule for hostname proxies. */
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/u;
const MAX_LABEL = 63;
const HASH_CHARS = 12;

/**
 * The runner id of an instance, derived deterministically so that every (re-)registration of the
 * instance uses the same id. Persistent: changing the derivation orphans live registrations.
 *
 * Instance ids are lowercase DNS labels already, so the instance id is used as it is: readable in
 * Node's logs and valid in Node's charset (`[A-Za-z0-9_-]`, at most 128 bytes) as well as in its
 * single-shot hostname-proxy rule (a lowercase DNS label of at most 63 characters). Anything else is
 * folded into that form with a hash suffix, so distinct ids stay distinct.
 */
export function runnerIdForInstance(instanceId: string): string {
  if (DNS_LABEL.test(instanceId)) return instanceId;
  const hash = createHash('sha256').update(instanceId, 'utf8').digest('hex').slice(0, HASH_CHARS);
  const folded = instanceId
    .toLowerCase()
    .replace(/[^a-z0-9-]+/gu, '-')
    .replace(/^-+|-+$/gu, '')
    .slice(0, MAX_LABEL - HASH_CHARS - 1)
    .replace(/-+$/u, '');
  return folded === '' ? `r-${hash}` : `${folded}-${hash}`;
}
