import { isIpv4 } from '@sandbox/protocol';

/** True for an IPv6 CIDR (it has a colon). */
export function isIpv6Cidr(cidr: string): boolean {
  return cidr.includes(':');
}

/** The fields of a Node this module reads. */
export interface NodeAddresses {
  status?: { addresses?: { type: string; address: string }[] };
}

const NODE_ADDRESS_TYPES = new Set(['InternalIP', 'ExternalIP']);

/**
 * Every node's IP addresses as single-address CIDRs (/32, /128): app egress never reaches a node (its
 * kubelet, the API server's host port, node-local services), even at a public address.
 */
export function nodeAddressCidrs(nodes: readonly NodeAddresses[]): string[] {
  const cidrs = new Set<string>();
  for (const node of nodes) {
    for (const { type, address } of node.status?.addresses ?? []) {
      if (!NODE_ADDRESS_TYPES.has(type)) continue;
      if (isIpv4(address)) cidrs.add(`${address}/32`);
      else if (address.includes(':')) cidrs.add(`${address}/128`);
    }
  }
  return [...cidrs].sort();
}
