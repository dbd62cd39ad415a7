import type { EgressPolicy, FirewallInput } from './firewall-rules';
import { NON_PUBLIC_RANGES } from './firewall-rules';
import type { HostAddress } from './host-network';
import type { InstanceNames } from './naming';
import type { Ipv4Network } from './subnet';
import { containsAddress, formatIpv4, parseCidr, parseIpv4 } from './subnet';

/** What every instance's rules share: the driver's subnet and the host ports no instance may reach. */
export interface FirewallSettings {
  subnet: Ipv4Network;
  subnetText: string;
  protectedPorts: readonly number[];
}

const nonPublic = NON_PUBLIC_RANGES.map(parseCidr);

function networkOf(address: string, prefixLength: number): Ipv4Network {
  const size = 2 ** (32 - prefixLength);
  return { network: Math.floor(parseIpv4(address) / size) * size, prefixLength };
}

/**
 * The networks of the host's own addresses that the fixed ranges do not already refuse (a public
 * uplink network, say), as CIDRs. Addresses in private ranges (the veths of this and other drivers,
 * container bridges) add nothing, so the rule set only changes when the host gains a public network.
 */
export function hostNetworks(addresses: readonly HostAddress[], settings: FirewallSettings): string[] {
  const found = new Set<string>();
  for (const entry of addresses) {
    const net = networkOf(entry.address, entry.prefixLength);
    const covered = [settings.subnet, ...nonPublic].some(
      (range) => range.prefixLength <= net.prefixLength && containsAddress(range, net.network),
    );
    if (!covered) found.add(`${formatIpv4(net.network)}/${net.prefixLength}`);
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
