import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '@sandbox/testing';
import type { Exec } from './exec';

/** A k3d cluster this run created (and must delete). */
export interface K3dCluster {
  readonly name: string;
  readonly kubeconfig: string;
  readonly apiPort: number;
  /** `k3d image import` of image archives into every node. */
  importImages(archives: readonly string[]): Promise<void>;
  /** Deletes the cluster and the kubeconfig folder; safe to call twice. */
  delete(): Promise<void>;
}

/** A unique cluster name: k3d names containers after it, so two runs never meet. */
export function clusterName(): string {
  return `sbx-e2e-${randomBytes(3).toString('hex')}`;
}

/** The `k3d cluster create` arguments: one server, no agents, the API on loopback only. */
export function clusterCreateArgs(name: string, image: string, apiPort: number): string[] {
  return [
    'cluster',
    'create',
    name,
    '--image',
    image,
    '--servers',
    '1',
    '--agents',
    '0',
    '--no-lb',
    '--api-port',
    `127.0.0.1:${apiPort}`,
    // Traefik, ServiceLB and metrics-server serve nothing here; the network policy controller and
    // the local-path provisioner (Redis's volume) stay on.
    '--k3s-arg',
    '--disable=traefik,servicelb,metrics-server@server:0',
    '--kubeconfig-update-default=false',
    '--kubeconfig-switch-context=false',
    '--wait',
    '--timeout',
    '300s',
  ];
}

/** Creates the cluster with the node image; on failure, deletes whatever was created. */
export async function createCluster(
  exec: Exec,
  k3d: string,
  image: string,
  log: (line: string) => void,
): Promise<K3dCluster> {
  const name = clusterName();
  const apiPort = await findFreePort();
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  const kubeconfig = join(dir, 'kubeconfig');
  let deleted = false;
  const cluster: K3dCluster = {
    name,
    kubeconfig,
    apiPort,
    importImages: async (archives) => {
      await exec(k3d, ['image', 'import', '--cluster', name, '--mode', 'direct', ...archives], {
        timeoutMs: 20 * 60_000,
        onLine: log,
      });
    },
    delete: async () => {
      if (deleted) return;
      deleted = true;
      await exec(k3d, ['cluster', 'delete', name], { allowFailure: true, timeoutMs: 180_000, onLine: log });
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await exec(k3d, clusterCreateArgs(name, image, apiPort), { timeoutMs: 10 * 60_000, onLine: log });
    await exec(k3d, ['kubeconfig', 'write', name, '--output', kubeconfig], { timeoutMs: 60_000 });
    return cluster;
  } catch (error) {
    await cluster.delete();
    throw error;
  }
}
