import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { startKubeHarness, type KubeHarness } from '../control-plane/kube-harness';
import { applyObjects, DEPLOY_DIR, renderKustomization } from '../manifests/manifests';
import { mountedSecrets, overlayDir, workloads } from '../manifests/workloads';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';
import { requireKubectl } from '../test-support/kubectl.fixture';

const SCRIPT = join(DEPLOY_DIR, 'create-secrets.sh');
const PLATFORM_SCRIPT = join(DEPLOY_DIR, 'platform', 'create-secrets.sh');
const SYSTEM = 'sandbox-system';
const PLATFORM = 'sandbox-verifier';

let harness: KubeHarness;
let admin: KubeConfig;
/** kubectl's HOME (its discovery cache), removed afterwards. */
let home = '';
/** The kubectl the script runs (its `KUBECTL`): without one, the suite fails, it does not skip. */
let kubectl = '';

function runScript(
  script = SCRIPT,
  extraEnv: Record<string, string> = {},
): { status: number | null; output: string } {
  const result = spawnSync('sh', [script], {
    env: {
      PATH: process.env['PATH'],
      HOME: home,
      KUBECONFIG: harness.kubeconfigPath,
      KUBECTL: kubectl,
      ...extraEnv,
    },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, output: result.stdout + result.stderr };
}

async function secretData(namespace = SYSTEM): Promise<Record<string, Record<string, string>>> {
  const list = await admin.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace });
  return Object.fromEntries(
    list.items.map((secret) => [
      secret.metadata?.name ?? '',
      Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([key, value]) => [
          key,
          Buffer.from(value, 'base64').toString(),
        ]),
      ),
    ]),
  );
}

describeWithKube('deploy/create-secrets.sh with kubectl', () => {
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'kubectl-home-'));
    harness = await startKubeHarness();
    kubectl = await requireKubectl(process.env);
    admin = await harness.adminConfig();
    const namespaces = (
      await renderKustomization(harness.binaries.kustomize, join(DEPLOY_DIR, 'cluster'))
    ).filter((object) => object.kind === 'Namespace');
    await applyObjects(admin, namespaces);
  }, HARNESS_START_TIMEOUT_MS);

  afterAll(async () => {
    await harness?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  }, 60_000);

  it('creates every Secret the overlays mount, with random values and a matching Redis password', async () => {
    const run = runScript();
    expect(run).toMatchObject({ status: 0 });
    const data = await secretData();
    for (const overlay of ['k3d', 'production'] as const) {
      const objects = await renderKustomization(harness.binaries.kustomize, overlayDir(overlay));
      const mounted = workloads(objects).flatMap((workload) => mountedSecrets(workload.template));
      for (const name of mounted) expect(Object.keys(data)).toContain(name);
    }
    const password = data['redis-auth']?.['password'] ?? '';
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    expect(data['redis-auth']?.['auth.conf']).toBe(`requirepass ${password}\n`);
    expect(data['adapter-bootstrap']?.['secret']).not.toBe(data['handoff-intake']?.['secret']);
    expect(Object.keys(data['adapter-api-tokens'] ?? {}).sort()).toEqual(['admin', 'read']);
    // Each service its own tokens: the adapter's and the drain-controller's differ.
    expect(data['adapter-api-tokens']?.['read']).toMatch(/^[0-9a-f]{64}$/);
    expect(data['drain-controller-api-tokens']?.['read']).not.toBe(data['adapter-api-tokens']?.['read']);
    // Values go through files, never the command line or the script's output.
    expect(run.output).not.toContain(password);
    // The machine's install holds no verifier key and no signer credential: the platform does.
    expect(Object.keys(data).filter((name) => name.startsWith('verifier'))).toEqual([]);
  });

  it('keeps every existing Secret when it runs again', async () => {
    const before = await secretData();
    const run = runScript();
    expect(run.status).toBe(0);
    expect(run.output).toContain('secret/redis-auth exists, kept');
    expect(await secretData()).toEqual(before);
  });

  it("creates the platform verifier's Secrets in its own namespace, the signer credential from a file", async () => {
    await applyObjects(
      admin,
      (await renderKustomization(harness.binaries.kustomize, join(DEPLOY_DIR, 'platform'))).filter(
        (object) => object.kind === 'Namespace',
      ),
    );
    expect(runScript(PLATFORM_SCRIPT).status).toBe(1);
    const credentialFile = join(home, 'signer-credential');
    await writeFile(credentialFile, 'platform-signer-credential', { mode: 0o600 });
    const run = runScript(PLATFORM_SCRIPT, { SIGNER_CREDENTIAL_FILE: credentialFile });
    expect(run).toMatchObject({ status: 0 });
    const data = await secretData(PLATFORM);
    const objects = await renderKustomization(harness.binaries.kustomize, join(DEPLOY_DIR, 'platform'));
    for (const name of workloads(objects).flatMap((workload) => mountedSecrets(workload.template)))
      expect(Object.keys(data)).toContain(name);
    expect(data['verifier-signer']?.['secret']).toBe('platform-signer-credential');
    expect(data['verifier-signing-key']?.['secret']).toMatch(/^[0-9a-f]{64}$/);
    expect(run.output).not.toContain(data['verifier-signing-key']?.['secret'] ?? 'unset');
    const again = runScript(PLATFORM_SCRIPT);
    expect(again.status).toBe(0);
    expect(await secretData(PLATFORM)).toEqual(data);
  });
});
