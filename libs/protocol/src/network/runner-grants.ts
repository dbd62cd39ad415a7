import { formatIpv4, ipv4NetworkSize, networkOf } from './ipv4';

/** Most runners Node registers in all; more grants than this many addresses are never useful. */
export const MAX_GRANTED_ADDRESSES = 256;

/**
 * The addresses instances can get in an IPv4 range: with `slots30` (the local driver), the instance
 * end of every /30 (`.2`, `.6`, ...); otherwise every host address (a node's pod CIDR).
 */
export function instanceAddresses(cidr: string, slots30: boolean): string[] {
  const [address = '', bits = ''] = cidr.split('/');
  const prefix = Number(bits);
  if (!Number.isInteger(prefix) || prefix < 16 || prefix > 30)
    throw new RangeError('prefix must be /16 to /30');
  const size = ipv4NetworkSize(prefix);
  const base = networkOf(address, prefix).network;
  const found: string[] = [];
  const step = slots30 ? 4 : 1;
  for (
    let offset = slots30 ? 2 : 1;
    offset < size - 1 && found.length < MAX_GRANTED_ADDRESSES;
    offset += step
  ) {
    found.push(formatIpv4(base + offset));
  }
  return found;
}

/**
 * Node's `--runner-grants` for instances in the range: one exact `host:port` per address and app port
 * (Node dials a private address only when its exact `host:port` is granted). Capped at
 * {@link MAX_GRANTED_ADDRESSES} addresses: Node never holds more runners than that.
 */
export function runnerGrants(cidr: string, ports: readonly number[], slots30: boolean): string[] {
  const addresses = instanceAddresses(cidr, slots30);
  return [...new Set(ports)]
    .sort((a, b) => a - b)
    .flatMap((port) => addresses.map((address) => `${address}:${port}`));
}
