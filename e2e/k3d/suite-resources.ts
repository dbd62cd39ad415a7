import { rm } from 'node:fs/promises';
import type { K3dCluster } from './cluster';
import type { Kubectl, PortForward } from './kubectl';

/** What the suite holds that must be released at the end. */
export interface SuiteResources {
  cluster?: K3dCluster;
  kubectl?: Kubectl;
  forwards: PortForward[];
  dirs: string[];
}

type Log = (line: string) => void;

/** After a failure: every pod and the latest events, so a CI log says what the cluster was doing. */
export async function printDiagnostics(resources: SuiteResources, log: Log): Promise<void> {
  const kubectl = resources.kubectl;
  if (!kubectl) return;
  for (const args of [
    ['get', 'pods', '--all-namespaces', '-o', 'wide'],
    ['get', 'events', '--all-namespaces', '--sort-by=.lastTimestamp'],
  ]) {
    const out = await kubectl.run(args, { timeoutMs: 60_000 }).catch((error: unknown) => String(error));
    log(`kubectl ${args.slice(0, 2).join(' ')}:\n${out.split('\n').slice(-60).join('\n')}`);
  }
}

/** Stops every port-forward, deletes the cluster and the temporary folders. */
export async function releaseResources(resources: SuiteResources): Promise<void> {
  for (const forward of resources.forwards.splice(0)) await forward.stop().catch(() => undefined);
  await resources.cluster?.delete();
  for (const dir of resources.dirs.splice(0)) await rm(dir, { recursive: true, force: true });
}
