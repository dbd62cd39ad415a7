// `npm run e2e:k3d` and `npm run e2e:node`: the system as deployed, end to end, on a fresh cluster.
//  --provider k3d (default): k3s with gVisor in Docker; needs a Docker engine, kubectl and k3d. Without
//    them it prints `skipped: …` and exits 0, claiming nothing (with `--require`, as hosted CI runs
//    it, it exits 1 instead).
//  --provider local-node: a one-node Kubernetes cluster on this host, built from source (needs root
//    and Go). It never skips: anything missing fails the run.
// Any failed check exits 1. The cluster and every temporary file are removed in every case, Ctrl-C
// included.
import { parseArgs } from 'node:util';
import { exec } from './exec';
import { findK3d } from './k3d-binary';
import { createK3dProvider } from './k3d-provider';
import { createLocalNodeProvider } from './local-node-provider';
import { checkPrerequisites } from './prerequisites';
import type { ClusterProvider } from './provider';
import { runSuite } from './suite';
import { printDiagnostics, releaseResources, type SuiteResources } from './suite-resources';

type Log = (line: string) => void;

/** How to make the provider's cluster, or why it cannot be made here (`require`: fail, not skip). */
async function providerFactory(
  name: string,
  log: Log,
): Promise<{ create: () => Promise<ClusterProvider> } | { missing: string; require: boolean }> {
  if (name === 'local-node') {
    if (process.getuid?.() !== 0) return { missing: 'the local node needs root', require: true };
    return { create: () => createLocalNodeProvider(exec, log) };
  }
  if (name !== 'k3d') return { missing: `unknown provider ${name} (k3d or local-node)`, require: true };
  const prerequisites = await checkPrerequisites({ exec, findK3d: () => findK3d({ exec }) });
  if (!prerequisites.ready) return { missing: prerequisites.reason, require: false };
  return { create: () => createK3dProvider(exec, prerequisites.tools, log) };
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      require: { type: 'boolean', default: false },
      provider: { type: 'string', default: 'k3d' },
    },
  });
  const log: Log = (line) => process.stdout.write(`[e2e:${values.provider}] ${line}\n`);
  const factory = await providerFactory(values.provider, log);
  if ('missing' in factory) {
    const fails = factory.require || values.require;
    log(`${fails ? 'failed' : 'skipped'}: ${factory.missing}; nothing was checked`);
    return fails ? 1 : 0;
  }
  const resources: SuiteResources = { dirs: [] };
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: deleting the cluster`);
    void releaseResources(resources).finally(() => process.exit(1));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const started = Date.now();
  try {
    await runSuite(exec, factory.create, resources, log);
    log(
      `passed: every check above ran against the ${values.provider} cluster (${Math.round((Date.now() - started) / 1000)} s)`,
    );
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
    process.stdout.write(`[e2e] crashed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
