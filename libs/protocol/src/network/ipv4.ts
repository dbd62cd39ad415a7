/**
 * IPv4 addresses and CIDR networks as unsigned 32-bit numbers: the one place the project parses,
 * formats and compares them (egress ranges, the local driver's subnet and slots, runner grants).
 */

/** An IPv4 network in CIDR form, as numbers. */
export interface Ipv4Network {
  /** Network address as an unsigned 32-bit number. */
  network: number;
  prefixLength: number;
}

/** Parses a dotted IPv4 address to an unsigned number; throws a `RangeError` on anything else. */
export function parseIpv4(text: string): number {
  const parts = text.split('.');
  if (parts.length !== 4) throw new RangeError(`not an IPv4 address: ${text}`);
  return parts.reduce((value, part) => {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) throw new RangeError(`not an IPv4 address: ${text}`);
    return value * 256 + Number(part);
  }, 0);
}

/** True for a dotted IPv4 address {@link parseIpv4} accepts. */
export function isIpv4(text: string): boolean {
  try {
    parseIpv4(text);
    return true;
  } catch {
    return false;
  }
}

/** Formats an unsigned number as a dotted IPv4 address. */
export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** How many addresses a network of `prefixLength` holds. */
export function ipv4NetworkSize(prefixLength: number): number {
  return 2 ** (32 - prefixLength);
}

function parsePrefixLength(text: string | undefined, cidr: string): number {
  const prefixLength = Number(text);
  if (text === undefined || !Number.isInteger(prefixLength) || prefixLength < 0 || prefixLength > 32) {
    throw new RangeError(`not an IPv4 CIDR: ${cidr}`);
  }
  return prefixLength;
}

/** Parses `a.b.c.d/n`; the address must be the network address itself. */
export function parseCidr(text: string): Ipv4Network {
  const [address, length] = text.split('/');
  const prefixLength = parsePrefixLength(length, text);
  const network = parseIpv4(address ?? '');
  if (network % ipv4NetworkSize(prefixLength) !== 0) throw new RangeError(`${text} has host bits set`);
  return { network, prefixLength };
}

/** The network of `prefixLength` that `address` lies in (its host bits cleared). */
export function networkOf(address: string, prefixLength: number): Ipv4Network {
  const size = ipv4NetworkSize(prefixLength);
  return { network: Math.floor(parseIpv4(address) / size) * size, prefixLength };
}

/** `a.b.c.d/n` of a network. */
export function formatCidr(net: Ipv4Network): string {
  return `${formatIpv4(net.network)}/${net.prefixLength}`;
}

/** True when the address (as a number) lies inside the network. */
export function containsAddress(net: Ipv4Network, address: number): boolean {
  return address >= net.network && address < net.network + ipv4NetworkSize(net.prefixLength);
}

/** True when `inner` lies entirely inside `outer`. */
export function containsNetwork(outer: Ipv4Network, inner: Ipv4Network): boolean {
  return outer.prefixLength <= inner.prefixLength && containsAddress(outer, inner.network);
}

/** True when the dotted address lies in any of the CIDRs (`ranges` parsed once, up front). */
export function ipv4RangeMatcher(ranges: readonly string[]): (address: string) => boolean {
  const networks = ranges.map(parseCidr);
  return (address) => {
    const value = parseIpv4(address);
    return networks.some((net) => containsAddress(net, value));
  };
}
