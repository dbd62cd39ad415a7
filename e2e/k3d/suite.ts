// The cluster suite's steps, in order, against one fresh cluster from a provider (k3d, or the local
// node). Each check prints `ok <name>` or throws; the caller releases the cluster whatever happens.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canIMatrix } from './can-i';
import { check, type Log } from './check';
import { drainChecks } from './drain-checks';
import { egressChecks } from './egress-checks';
import type { Exec } from './exec';
import { checkImageArchive } from './image-archives';
import {
  buildImageArchives,
  imagesWithoutArchive,
  installOverlay,
  renderedImages,
  renderWithKubectl,
} from './install';
import { pinResolver } from './pin-resolver';
import { redisDataCheck } from './redis-checks';
import { exportRedisImage, pinRedis } from './redis-image';
import type { ClusterProvider } from './provider';
import { admissionCheck, appDeletionCheck, failoverChecks, policyRestoreCheck } from './recovery-checks';
import { exportSdkClientImage } from './sdk-client-image';
import type { SuiteResources } from './suite-resources';
import { systemEndpoints, systemFlow, type SystemContext } from './system-checks';

/**
 * Images built, the cluster made, images imported, the overlay installed and rolled out: the system as
 * an operator has it after the install. `resources` collects what the caller must release.
 */
export async function deploySystem(
  exec: Exec,
  createProvider: () => Promise<ClusterProvider>,
  resources: SuiteResources,
  log: Log,
): Promise<SystemContext> {
  const outDir = await mkdtemp(join(tmpdir(), 'e2e-images-'));
  resources.dirs.push(outDir);
  const archives = await buildImageArchives(exec, outDir, log);
  const redis = await checkImageArchive(
    exec,
    (await exportRedisImage(join(outDir, 'redis.tar'))).archive.file,
  );
  const pinnedFile = join(outDir, 'kustomization.yaml');
  await writeFile(pinnedFile, pinRedis(await readFile(pinnedFile, 'utf8'), redis.reference));
  const client = await checkImageArchive(
    exec,
    (await exportSdkClientImage(join(outDir, 'sdk-client.tar'))).archive.file,
  );
  const built = [...archives, redis, client];
  log(
    `ok   ${built.length} image archives in the OCI and docker layouts (Redis's and the SDK client's included)`,
  );
  const provider = await createProvider();
  resources.provider = provider;
  const kubectl = provider.kubectl;
  await writeFile(pinnedFile, pinResolver(await readFile(pinnedFile, 'utf8'), provider.internet.resolver));
  const pinned = { dir: outDir, objects: await renderWithKubectl(kubectl, outDir) };
  check(log, 'the pinned overlay names only images just built', [
    ...imagesWithoutArchive(pinned.objects, built),
    ...renderedImages(pinned.objects)
      .filter((image) => !image.startsWith('localhost/'))
      .map((image) => `${image} would be pulled`),
  ]);
  await provider.importImages(built.map((a) => a.file));
  log(`ok   images imported into the ${provider.name} cluster's runtime`);
  await installOverlay(exec, provider, pinned, log);
  log('ok   overlay applied, every rollout complete');
  const appImage =
    archives.find((a) => a.reference.startsWith('localhost/sandbox-example-app:'))?.reference ?? '';
  return {
    provider,
    images: { app: appImage, client: client.reference },
    ...(await systemEndpoints(provider)),
  };
}

/** Deploys the system, then runs every check against it. */
export async function runSuite(
  exec: Exec,
  createProvider: () => Promise<ClusterProvider>,
  resources: SuiteResources,
  log: Log,
): Promise<void> {
  const context = await deploySystem(exec, createProvider, resources, log);
  const { provider } = context;
  const kubectl = provider.kubectl;
  await systemFlow(context, log);
  await redisDataCheck(kubectl, log);
  await egressChecks(provider, log);
  check(
    log,
    'RBAC: kubectl auth can-i matrix for every service account',
    await canIMatrix(exec, kubectl.path, kubectl.kubeconfig),
  );
  await admissionCheck(kubectl, log);
  await policyRestoreCheck(context, log);
  await failoverChecks(context, log);
  await drainChecks(context, log);
  await appDeletionCheck(context, 'echo-net', log);
}
