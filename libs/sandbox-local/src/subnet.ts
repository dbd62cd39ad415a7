/** An IPv4 network in CIDR form, as numbers. */
export interface Ipv4Network {
  /** Network address as an unsigned 32-bit number. */
  network: number;
  prefixLength: number;
}

/** The /30 of one instance: the host end and the instance end of its veth pair. */
export interface SlotAddressing {
  slot: number;
  hostAddress: string;
  instanceAddress: string;
  prefixLength: 30;
}

const SLOT_PREFIX = 30;

/** Parses a dotted IPv4 address to an unsigned number; throws on anything else. */
export function parseIpv4(text: string): number {
  const parts = text.split('.');
  if (parts.length !== 4) throw new Error(`not an IPv4 address: ${text}`);
  return parts.reduce((value, part) => {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) throw new Error(`not an IPv4 address: ${text}`);
    return value * 256 + Number(part);
  }, 0);
}

/** Formats an unsigned number as a dotted IPv4 address. */
export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** Parses `a.b.c.d/n`; the address must be the network address itself. */
export function parseCidr(text: string): Ipv4Network {
  const [address, length] = text.split('/');
  const prefixLength = Number(length);
  if (address === undefined || !Number.isInteger(prefixLength) || prefixLength < 0 || prefixLength > 32) {
    throw new Error(`not an IPv4 CIDR: ${text}`);
  }
  const network = parseIpv4(address);
  if (network % 2 ** (32 - prefixLength) !== 0) throw new Error(`${text} has host bits set`);
  return { network, prefixLength };
}

/** True when the address lies inside the network. */
export function containsAddress(net: Ipv4Network, address: number): boolean {
  const size = 2 ** (32 - net.prefixLength);
  return address >= net.network && address < net.network + size;
}

/** How many /30 slots the subnet holds. */
export function slotCount(subnet: Ipv4Network): number {
  if (subnet.prefixLength > SLOT_PREFIX) throw new Error('the instance subnet must be /30 or larger');
  return 2 ** (SLOT_PREFIX - subnet.prefixLength);
}

/** Addresses of slot `slot`: `.1` of the /30 for the host, `.2` for the instance. */
export function slotAddressing(subnet: Ipv4Network, slot: number): SlotAddressing {
  if (!Number.isInteger(slot) || slot < 0 || slot >= slotCount(subnet))
    throw new Error(`slot ${slot} is outside the subnet`);
  const base = subnet.network + slot * 4;
  return {
    slot,
    hostAddress: formatIpv4(base + 1),
    instanceAddress: formatIpv4(base + 2),
    prefixLength: SLOT_PREFIX,
  };
}

/** The slot an address falls in, or undefined when it is outside the subnet. */
export function slotOf(subnet: Ipv4Network, address: string): number | undefined {
  const value = parseIpv4(address);
  return containsAddress(subnet, value) ? Math.floor((value - subnet.network) / 4) : undefined;
}

/**
 * The first free slot at or after `start`, wrapping around; undefined when all are used. Starting
 * after the last allocation keeps a just-freed address (and any conntrack entries left for it) out of
 * use for as long as possible.
 */
export function nextFreeSlot(
  subnet: Ipv4Network,
  used: ReadonlySet<number>,
  start: number,
): number | undefined {
  const count = slotCount(subnet);
  for (let step = 0; step < count; step += 1) {
    const slot = (((start + step) % count) + count) % count;
    if (!used.has(slot)) return slot;
  }
  return undefined;
}
