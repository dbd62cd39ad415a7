import { containsAddress, formatIpv4, parseIpv4, type Ipv4Network } from '@sandbox/protocol';

/** The /30 of one instance: the host end and the instance end of its veth pair. */
export interface SlotAddressing {
  slot: number;
  hostAddress: string;
  instanceAddress: string;
  prefixLength: 30;
}

const SLOT_PREFIX = 30;

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
