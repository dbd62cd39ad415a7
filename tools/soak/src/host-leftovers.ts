/** What the host shows of a run: each source's raw output, as its command prints it. */
export interface HostListing {
  /** `ip netns list`. */
  netns: string;
  /** `iptables-save` (filter and nat). */
  iptables: string;
  /** `podman ps -a --format {{.Names}}`. */
  containers: string;
  /** Process ids of the run's members and clients still alive. */
  livePids: readonly number[];
}

/**
 * Everything of the run left on the host, named: network namespaces, iptables chains and containers
 * of the instances' prefix, and live processes. Empty when the host is clean.
 */
export function hostLeftovers(listing: HostListing, prefix: string): string[] {
  const netns = new RegExp(`^${prefix}-[a-z0-9]{10}\\b`);
  const chain = new RegExp(`^:(${prefix.toUpperCase()}-[a-z0-9]{10}-[EINP])\\s`);
  const lines = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
  const namespaces = lines(listing.netns)
    .filter((line) => netns.test(line))
    .map((line) => `netns ${line.split(/\s/)[0]}`);
  const chains = [...new Set(lines(listing.iptables).flatMap((line) => chain.exec(line)?.[1] ?? []))].map(
    (name) => `iptables chain ${name}`,
  );
  const containers = lines(listing.containers)
    .filter((name) => netns.test(name))
    .map((name) => `container ${name}`);
  const processes = listing.livePids.map((pid) => `process ${pid}`);
  return [...namespaces, ...chains, ...containers, ...processes];
}
