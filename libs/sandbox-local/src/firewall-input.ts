import type { EgressPolicy, FirewallInput } from './firewall-rules';
import { NON_PUBLIC_RANGES } from './firewall-rules';
import type { HostAddress } from './host-network';
import type { InstanceNames } from './naming';
import { containsNetwork, formatCidr, networkOf, parseCidr, type Ipv4Network } from '@sandbox/protocol';

/** What every instance's rules share: the driver's subnet and the host ports no instance may reach. */
export interface FirewallSettings {
  subnet: Ipv4Network;
  subnetText: string;
  protectedPorts: readonly number[];
}

const nonPublic = NON_PUBLIC_RANGES.map(parseCidr);

/**
 * The networks of the host's own addresses that the fixed ranges do not already refuse (a public
 * uplink network, say), as CIDRs. Addresses in private ranges (the veths of this and other drivers,
 * container bridges) add nothing, so the rule set only changes when the host gains a public network.
 */
export function hostNetworks(addresses: readonly HostAddress[], settings: FirewallSettings): string[] {
  const found = new Set<string>();
  for (const entry of addresses) {
    const net = networkOf(entry.address, entry.prefixLength);
    const covered = [settings.subnet, ...nonPublic].some((range) => containsNetwork(range, net));
    if (!covered) found.add(formatCidr(net));
  }
  return [...found].sort();
}

/** The firewall input of one instance, the same at start and when its rules are verified or restored. */
export function firewallInputFor(
  names: InstanceNames,
  instanceAddress: string,
  egress: EgressPolicy,
  networks: readonly string[],
  settings: FirewallSettings,
): FirewallInput {
  return {
    names,
    instanceAddress,
    egress,
    blockedRanges: [...NON_PUBLIC_RANGES, settings.subnetText, ...networks],
    protectedPorts: settings.protectedPorts,
  };
}
