import type { Firewall } from './firewall';
import type { EgressPolicy } from './firewall-rules';
import type { HostNetwork } from './host-network';
import { nameParsers } from './naming';
import type { ContainerSummary, Podman } from './podman';
import { LABEL } from './podman-args';

/** What exists on the host for one instance id, found by name and label. */
export interface DiscoveredInstance {
  instanceId: string;
  /** From the container's labels; absent when the container is gone. */
  address?: string;
  port?: number;
  url?: string;
  egress?: EgressPolicy;
  /** The caller's labels given at start. */
  labels: Record<string, string>;
  /** Podman's state of the container; undefined when there is none. */
  containerState?: string;
  parts: { container: boolean; namespace: boolean; veth: boolean; firewall: boolean };
  /** Every part exists and the container is running: the instance can be adopted as it is. */
  complete: boolean;
}

interface Parts {
  container?: ContainerSummary;
  namespace: boolean;
  veth: boolean;
  chains: Set<string>;
}

function fromContainer(instanceId: string, parts: Parts): DiscoveredInstance {
  const container = parts.container;
  const labels = container?.labels ?? {};
  const meta = Object.entries(labels)
    .filter(([key]) => key.startsWith(LABEL.metaPrefix))
    .map(([key, value]) => [key.slice(LABEL.metaPrefix.length), value]);
  const address = labels[LABEL.address];
  const port = labels[LABEL.port] === undefined ? undefined : Number(labels[LABEL.port]);
  const egress = labels[LABEL.egress];
  const firewall = parts.chains.size >= 2;
  const found: DiscoveredInstance = {
    instanceId,
    labels: Object.fromEntries(meta),
    parts: { container: Boolean(container), namespace: parts.namespace, veth: parts.veth, firewall },
    complete: container?.state === 'running' && parts.namespace && parts.veth && firewall,
  };
  if (container) found.containerState = container.state;
  if (address && port !== undefined && Number.isInteger(port)) {
    Object.assign(found, { address, port, url: `http://${address}:${port}` });
  }
  if (egress === 'none' || egress === 'internet') found.egress = egress;
  return found;
}

/**
 * Lists every instance of the prefix that has anything left on the host: a container, a namespace, a
 * veth or a chain. A restarted manager adopts the complete ones it knows and stops the rest.
 */
export async function discoverInstances(
  prefix: string,
  deps: { podman: Podman; network: HostNetwork; firewall: Firewall },
): Promise<DiscoveredInstance[]> {
  const parse = nameParsers(prefix);
  const [containers, namespaces, veths, chains] = await Promise.all([
    deps.podman.list(prefix),
    deps.network.listNamespaces(),
    deps.network.listVeths(),
    deps.firewall.listChains(),
  ]);
  const byId = new Map<string, Parts>();
  const entry = (id: string) => {
    let parts = byId.get(id);
    if (!parts) byId.set(id, (parts = { namespace: false, veth: false, chains: new Set() }));
    return parts;
  };
  for (const container of containers) {
    const id = container.labels[LABEL.instance];
    if (id && parse.fromNetns(container.name) === id) entry(id).container = container;
  }
  for (const name of namespaces) {
    const id = parse.fromNetns(name);
    if (id) entry(id).namespace = true;
  }
  for (const name of veths) {
    const id = parse.fromHostVeth(name);
    if (id) entry(id).veth = true;
  }
  for (const name of chains) {
    const id = parse.fromChain(name);
    if (id) entry(id).chains.add(name);
  }
  return [...byId.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, parts]) => fromContainer(id, parts));
}
