import { INSTANCE_ID_PATTERN, INSTANCE_ID_SOURCE } from '@sandbox/protocol';

/**
 * Every object the driver creates on the host (network namespace, veth pair, iptables chains,
 * container) is named from a short prefix and the instance id, so a restarted driver can find them all
 * again without any state of its own. Persistent: renaming strands the objects of running instances.
 */
const PREFIX_PATTERN = /^[a-z]{2,4}$/;
// Instance ids are in protocol's minted format (INSTANCE_ID_PATTERN): ten lowercase letters or digits,
// so interface names stay within 15 bytes: prefix(4) + 'h' + id(10).

/** The host-side names of one instance. */
export interface InstanceNames {
  instanceId: string;
  /** Network namespace (a file under /run/netns). */
  netns: string;
  /** Host end of the veth pair. */
  hostVeth: string;
  /** Instance end of the veth pair (inside the namespace). */
  instanceVeth: string;
  /** Filter chain for traffic the instance sends. */
  egressChain: string;
  /** Filter chain for traffic forwarded towards the instance. */
  ingressChain: string;
  /** NAT chain (egress `internet` only). */
  natChain: string;
  /** NAT chain first in PREROUTING for the instance's packets: it accepts them untranslated (no DNAT). */
  preroutingChain: string;
  /** Podman container name. */
  container: string;
}

/** Throws unless the prefix is 2-4 lowercase letters. */
export function assertPrefix(prefix: string): void {
  if (!PREFIX_PATTERN.test(prefix)) throw new Error(`name prefix must match ${PREFIX_PATTERN.source}`);
}

/** The names of every host object of one instance. */
export function instanceNames(prefix: string, instanceId: string): InstanceNames {
  if (!INSTANCE_ID_PATTERN.test(instanceId))
    throw new Error('instance id must be ten lowercase letters or digits');
  const chain = `${prefix.toUpperCase()}-${instanceId}`;
  return {
    instanceId,
    netns: `${prefix}-${instanceId}`,
    hostVeth: `${prefix}h${instanceId}`,
    instanceVeth: `${prefix}c${instanceId}`,
    egressChain: `${chain}-E`,
    ingressChain: `${chain}-I`,
    natChain: `${chain}-N`,
    preroutingChain: `${chain}-P`,
    container: `${prefix}-${instanceId}`,
  };
}

/** Every chain of one instance, as the firewall removes them. */
export function instanceChains(names: InstanceNames): Set<string> {
  return new Set([names.egressChain, names.ingressChain, names.natChain, names.preroutingChain]);
}

/** Parsers that recover an instance id from a host object's name, or undefined when it is not ours. */
export function nameParsers(prefix: string): {
  fromNetns: (name: string) => string | undefined;
  fromHostVeth: (name: string) => string | undefined;
  fromChain: (name: string) => string | undefined;
} {
  const match = (pattern: RegExp) => (name: string) => pattern.exec(name)?.[1];
  return {
    fromNetns: match(new RegExp(`^${prefix}-(${INSTANCE_ID_SOURCE})$`)),
    fromHostVeth: match(new RegExp(`^${prefix}h(${INSTANCE_ID_SOURCE})$`)),
    fromChain: match(new RegExp(`^${prefix.toUpperCase()}-(${INSTANCE_ID_SOURCE})-[EINP]$`)),
  };
}
