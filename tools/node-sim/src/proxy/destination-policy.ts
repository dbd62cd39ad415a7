import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { BlockList, isIP } from 'node:net';
import { ipv4RangeMatcher } from '@sandbox/protocol';

// Node's own list (destination/policy.go), mirrored on purpose: the simulator follows Node, not our
// egress policy (libs/protocol NON_PUBLIC_IPV4_RANGES), even where the two agree today.
const DENIED_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];
const DENIED_V6 = [
  '::/128',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
];

// IPv6 ranges go through the standard library's BlockList (the project's own helper is IPv4 only).
function ipv6BlockList(ranges: string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [network = '', prefix = '0'] = range.split('/');
    list.addSubnet(network, Number(prefix), 'ipv6');
  }
  return list;
}

const deniedV4 = ipv4RangeMatcher(DENIED_V4);
const deniedV6 = ipv6BlockList(DENIED_V6);
const globalV6 = ipv6BlockList(['2000::/3']);

/** Node's `destination.Public`: a public unicast address (IPv4-mapped IPv6 judged as IPv4). */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/iu.exec(address)?.[1];
  const v4 = mapped ?? address;
  if (mapped !== undefined || isIP(address) === 4) return isIP(v4) === 4 && !deniedV4(v4);
  if (isIP(address) !== 6) return false;
  return globalV6.check(address, 'ipv6') && !deniedV6.check(address, 'ipv6');
}

/** Raised when a destination may not or cannot be dialed; the proxy answers 502. */
export class DestinationError extends Error {
  override readonly name = 'DestinationError';
}

/** `host:port` of a URL as Go dials it (default ports filled in, IPv6 bracketed), lower-cased. */
export function dialAddress(url: URL): string {
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return `${url.hostname}:${port}`.toLowerCase();
}

/**
 * Node's destination policy: private, loopback and other non-public addresses are refused at dial
 * time unless the exact `host:port` is granted (`--runner-grant`).
 */
export class DestinationPolicy {
  readonly #grants: Set<string>;

  constructor(
    readonly purpose: string,
    grants: readonly string[],
  ) {
    this.#grants = new Set(grants.map((grant) => parseGrant(purpose, grant)));
  }

  /** Throws {@link DestinationError} unless every address is public or `host:port` is granted. */
  assertAllowed(address: string, resolved: readonly string[]): void {
    if (resolved.length === 0) throw new DestinationError(`${this.purpose} destination has no addresses`);
    if (!this.#grants.has(address) && resolved.some((ip) => !isPublicAddress(ip))) {
      throw new DestinationError(
        `${this.purpose} destination contains a denied address; add an exact host:port grant for this purpose`,
      );
    }
  }

  /**
   * A `lookup` for `http.request` that resolves like the system resolver and then applies the policy,
   * so every new connection (pooled or not) is checked at dial time, as Node does.
   */
  lookupFor(address: string): LookupFunction {
    return (hostname, options, callback) => {
      lookupAll(hostname)
        .then((entries) => {
          this.assertAllowed(
            address,
            entries.map((entry) => entry.address),
          );
          if (options.all) return callback(null, entries);
          const first = entries[0] as LookupAddress;
          return callback(null, first.address, first.family);
        })
        .catch((error: unknown) => callback(error as NodeJS.ErrnoException, '', 0));
    };
  }
}

async function lookupAll(hostname: string): Promise<LookupAddress[]> {
  try {
    return await lookup(hostname, { all: true });
  } catch {
    throw new DestinationError('destination DNS lookup failed');
  }
}

/** Validates one grant (`host:port`, port 1–65535, no `/` or `@`) and returns its lookup key. */
export function parseGrant(purpose: string, grant: string): string {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d+)$/u.exec(grant.trim());
  const host = match?.[1] ?? '';
  const port = Number(match?.[2]);
  if (!match || host === '' || /[/@]/u.test(host) || !(port >= 1 && port <= 65_535)) {
    throw new Error(`invalid ${purpose} destination grant: expected exact host:port`);
  }
  return `${host}:${port}`.toLowerCase();
}
