import { rm } from 'node:fs/promises';
import type { Log } from './check';
import type { ClusterProvider } from './provider';

/** What the suite holds that must be released at the end. */
export interface SuiteResources {
  provider?: ClusterProvider;
  dirs: string[];
}

/** After a failure: every pod and the latest events, so a CI log says what the cluster was doing. */
export async function printDiagnostics(resources: SuiteResources, log: Log): Promise<void> {
  const kubectl = resources.provider?.kubectl;
  if (!kubectl) return;
  for (const args of [
    ['get', 'pods', '--all-namespaces', '-o', 'wide'],
    ['get', 'events', '--all-namespaces', '--sort-by=.lastTimestamp'],
  ]) {
    const out = await kubectl.run(args, { timeoutMs: 60_000 }).catch((error: unknown) => String(error));
    log(`kubectl ${args.slice(0, 2).join(' ')}:\n${out.split('\n').slice(-60).join('\n')}`);
  }
  // The last lines of every pod that is not ready: usually the reason itself.
  const pods = await kubectl
    .json<{ items: PodStatus[] }>(['get', 'pods', '--all-namespaces'])
    .catch(() => ({ items: [] as PodStatus[] }));
  for (const pod of pods.items.filter(
    (p) => !p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  )) {
    const { name, namespace } = pod.metadata;
    const args = ['-n', namespace, 'logs', name, '--all-containers', '--tail=30'];
    const out = await kubectl.run(args, { timeoutMs: 30_000 }).catch((error: unknown) => String(error));
    log(`logs of ${namespace}/${name}:\n${out}`);
  }
}

interface PodStatus {
  metadata: { name: string; namespace: string };
  status: { conditions?: { type: string; status: string }[] };
}

/** Releases the cluster (port-forwards, processes, host state) and the temporary folders. */
export async function releaseResources(resources: SuiteResources): Promise<void> {
  const provider = resources.provider;
  resources.provider = undefined;
  await provider?.release();
  for (const dir of resources.dirs.splice(0)) await rm(dir, { recursive: true, force: true });
}
