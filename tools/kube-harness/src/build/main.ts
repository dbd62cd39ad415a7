// Builds (or finds in the cache) kube-apiserver, etcd and kustomize for the test harness, and the
// local node's programs (crictl, pause), so CI can pay for the build before `npm test`:
//   node --import tsx tools/kube-harness/src/build/main.ts
import { ensureRunscBuild } from '@sandbox/sandbox-local';
import { ensureClusterBinaries } from '../local-cluster/ensure-cluster-binaries';
import { ensureNodeBinaries } from '../local-node/ensure-node-binaries';
import { ensureKubeBinaries } from './ensure-kube-binaries';
import { goToolchain } from './go-toolchain';

async function main(): Promise<number> {
  const go = await goToolchain();
  if (!go) {
    process.stdout.write('kube-harness: go not found on PATH; the Kubernetes integration tests will skip\n');
    return 0;
  }
  const started = Date.now();
  const binaries = await ensureKubeBinaries();
  const seconds = ((Date.now() - started) / 1_000).toFixed(1);
  const { kubernetes, etcd, kustomize } = binaries.versions;
  process.stdout.write(
    `kube-harness: ${go}; kubernetes ${kubernetes}, etcd ${etcd}, kustomize ${kustomize}\n`,
  );
  process.stdout.write(`kube-harness: ${binaries.built ? 'built' : 'cached'} in ${binaries.dir}\n`);
  process.stdout.write(`kube_harness_${binaries.built ? 'build' : 'cache_check'}: ${seconds} s\n`);
  const nodeStarted = Date.now();
  const node = await ensureNodeBinaries();
  const nodeSeconds = ((Date.now() - nodeStarted) / 1_000).toFixed(1);
  process.stdout.write(
    `kube-harness: local node programs ${node.built ? 'built' : 'cached'} in ${node.dir}\n`,
  );
  process.stdout.write(`kube_node_${node.built ? 'build' : 'cache_check'}: ${nodeSeconds} s\n`);
  const clusterStarted = Date.now();
  const cluster = await ensureClusterBinaries({
    onProgram: (name, built, seconds) =>
      process.stdout.write(
        `kube_cluster_${built ? 'build' : 'cache_check'}{program="${name}"}: ${seconds.toFixed(1)} s\n`,
      ),
  });
  process.stdout.write(`kube-harness: local cluster programs (gVisor shim variant ${cluster.shimVariant})\n`);
  const runscStarted = Date.now();
  const runsc = await ensureRunscBuild();
  process.stdout.write(
    `kube_cluster_${runsc.built ? 'build' : 'cache_check'}{program="runsc"}: ${((Date.now() - runscStarted) / 1_000).toFixed(1)} s\n`,
  );
  process.stdout.write(`kube_cluster_total: ${((Date.now() - clusterStarted) / 1_000).toFixed(1)} s\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `kube-harness build failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
