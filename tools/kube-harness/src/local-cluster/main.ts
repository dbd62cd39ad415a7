// The local cluster from a shell, for debugging (as root):
//   node --import tsx tools/kube-harness/src/local-cluster/main.ts up     # starts it, prints its paths, Ctrl-C stops it
//   node --import tsx tools/kube-harness/src/local-cluster/main.ts down   # removes whatever a run left behind
import pino from 'pino';
import { cleanupLocalCluster } from './cleanup-cluster';
import { startLocalCluster } from './local-cluster';

const logger = pino({ name: 'local-cluster' });

async function up(): Promise<number> {
  const started = Date.now();
  const cluster = await startLocalCluster({ logger });
  process.stdout.write(
    `local cluster ready in ${((Date.now() - started) / 1_000).toFixed(1)} s\n` +
      `export KUBECONFIG=${cluster.kubeconfigPath}\nkubectl: ${cluster.kubectlPath}\nnode dir: ${cluster.dir}\n`,
  );
  // The cluster's handles are unref'd (a forgotten fixture must not keep a test alive): hold on.
  const keepAlive = setInterval(() => undefined, 60_000);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  clearInterval(keepAlive);
  const stopping = Date.now();
  await cluster.stop();
  process.stdout.write(`local cluster stopped in ${((Date.now() - stopping) / 1_000).toFixed(1)} s\n`);
  return 0;
}

async function main(command: string | undefined): Promise<number> {
  if (command === 'up') return up();
  if (command === 'down') {
    const started = Date.now();
    await cleanupLocalCluster();
    process.stdout.write(`local cluster removed in ${((Date.now() - started) / 1_000).toFixed(1)} s\n`);
    return 0;
  }
  process.stderr.write('usage: main.ts up|down\n');
  return 2;
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (error: unknown) => {
    logger.error({ err: error }, 'local cluster command failed');
    process.exit(1);
  },
);
