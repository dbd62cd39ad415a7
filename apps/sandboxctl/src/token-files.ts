import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServiceEndpoint } from './client/api-client';

/** Where `npm start` keeps the admin token of the management APIs, under the repository root. */
export const STACK_ADMIN_TOKEN = join('.data', 'secrets', 'admin-token');

/**
 * The embedded stack's admin token file of the repository holding one of `startDirs` (the first
 * ancestor with an `nx.json`), if `npm start` generated it there; else undefined.
 */
export function findStackTokenFile(
  startDirs: readonly string[],
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  for (const start of startDirs) {
    for (let dir = start; ; dir = dirname(dir)) {
      if (exists(join(dir, 'nx.json'))) {
        const file = join(dir, STACK_ADMIN_TOKEN);
        if (exists(file)) return file;
        break;
      }
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

/** True for URLs on this machine: the embedded stack's token is never sent anywhere else. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Which token an endpoint sends, in words (never the token): for hints and `config view`. */
export function describeToken(endpoint: ServiceEndpoint): string {
  return endpoint.tokenFile
    ? `the token of ${endpoint.tokenFile} (${endpoint.tokenSource ?? 'configured'})`
    : 'no token';
}

/** What to try after a 401, 403 or 421, given what was sent; undefined for other statuses. */
export function accessHint(service: string, status: number, endpoint: ServiceEndpoint): string | undefined {
  const sent = `sent ${describeToken(endpoint)}`;
  const howToSet =
    'set tokenFile in the context of the config file, SANDBOXCTL_TOKEN_FILE, or ' +
    `SANDBOXCTL_${service.toUpperCase().replace(/-/g, '_')}_TOKEN_FILE`;
  if (status === 401)
    return endpoint.tokenFile
      ? `${sent}, which ${service} does not accept; is it this service's admin or read token?`
      : `no token was sent: ${howToSet} (\`npm start\` writes .data/secrets/admin-token)`;
  if (status === 403) return `${sent}; this call needs the admin token (${howToSet})`;
  if (status === 421)
    return (
      `${service} does not answer to the host name of ${endpoint.url}: use its IP address, ` +
      "or add the name to the service's ALLOWED_HOSTS"
    );
  return undefined;
}
