import type { ClusterFacts } from './egress-matrix';
import { SYSTEM_NAMESPACE } from './install';
import type { Kubectl } from './kubectl';
import type { InternetFacts } from './provider';

interface ServiceList {
  items: { metadata: { name: string }; spec: { clusterIP?: string; ports?: { port: number }[] } }[];
}

/**
 * Cloudflare's resolver: a public address that answers TCP 443 and DNS, and a name it resolves to
 * itself. `egress: internet` pods get it as their only resolver (deploy/k3d sets the same).
 */
export const PUBLIC_TARGET: InternetFacts = {
  host: '1.1.1.1',
  port: 443,
  resolver: '1.1.1.1',
  name: 'one.one.one.one',
};

/** Reads the addresses the egress matrix probes from the cluster itself. */
export async function clusterFacts(
  kubectl: Kubectl,
  otherAppPod: { ip: string; port: number },
  publicTarget: { host: string; port: number },
): Promise<ClusterFacts> {
  const api = await kubectl.json<{ spec: { clusterIP: string } }>([
    '-n',
    'default',
    'get',
    'service',
    'kubernetes',
  ]);
  const nodes = await kubectl.json<{
    items: { status: { addresses: { type: string; address: string }[] } }[];
  }>(['get', 'nodes']);
  const nodeIp = nodes.items[0]?.status.addresses.find((a) => a.type === 'InternalIP')?.address;
  if (!nodeIp) throw new Error('the node has no InternalIP');
  const services = await kubectl.json<ServiceList>(['-n', SYSTEM_NAMESPACE, 'get', 'services']);
  const redis = await kubectl.json<{ status: { podIP?: string } }>([
    '-n',
    SYSTEM_NAMESPACE,
    'get',
    'pod',
    'redis-0',
  ]);
  return {
    apiServerClusterIp: api.spec.clusterIP,
    nodeIp,
    services: services.items
      .filter((s) => s.spec.clusterIP && s.spec.clusterIP !== 'None')
      .map((s) => ({
        name: s.metadata.name,
        ip: s.spec.clusterIP ?? '',
        port: s.spec.ports?.[0]?.port ?? 0,
      })),
    redisPodIp: redis.status.podIP ?? '',
    otherAppPod,
    publicTarget,
  };
}
