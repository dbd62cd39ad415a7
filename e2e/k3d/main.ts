// `npm run e2e:k3d`: the system on a k3d cluster (k3s with gVisor), end to end. Needs a Docker
// engine, kubectl and k3d (on PATH, or the pinned release downloaded once where the network allows).
// Without them it prints `skipped: …` and exits 0, claiming nothing (with `--require`, as hosted CI
// runs it, it exits 1 instead); any failed check exits 1. The cluster, its port-forwards and
// temporary files are removed in every case, Ctrl-C included.
import { parseArgs } from 'node:util';
import { exec } from './exec';
import { findK3d } from './k3d-binary';
import { checkPrerequisites } from './prerequisites';
import { runSuite } from './suite';
import { printDiagnostics, releaseResources, type SuiteResources } from './suite-resources';

const log = (line: string) => process.stdout.write(`[e2e:k3d] ${line}\n`);

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { require: { type: 'boolean', default: false } } });
  const prerequisites = await checkPrerequisites({ exec, findK3d: () => findK3d({ exec }) });
  if (!prerequisites.ready) {
    log(`skipped: ${prerequisites.reason}; nothing was checked`);
    return values.require ? 1 : 0;
  }
  const resources: SuiteResources = { forwards: [], dirs: [] };
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: deleting the cluster`);
    void releaseResources(resources).finally(() => process.exit(1));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    await runSuite(exec, prerequisites.tools, resources, log);
    log('passed: every check above ran against the k3d cluster');
    return 0;
  } catch (error) {
    log((error as Error).message);
    await printDiagnostics(resources, log);
    return 1;
  } finally {
    log('deleting the cluster');
    await releaseResources(resources);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`crashed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
