import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { canI, serviceAccountKubeConfig, type AccessQuestion } from '../control-plane/service-accounts';
import { ALLOWED, DENIED_TO_ALL, deniedTo, describeQuestion, type Account } from './rbac-matrix';
import { servedResources } from '../test-support/api-get.fixture';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';
import { DEPLOY, startDeployedHarness, type DeployedHarness } from '../test-support/deployed-harness.fixture';

const SYSTEM = DEPLOY.systemNamespace;
const NODE = DEPLOY.orchestratorDeployment;
const BOOTSTRAP = DEPLOY.adapterSecret;

/** The questions whose answer differs from `expected`, described, for one readable failure. */
async function mismatches(
  admin: KubeConfig,
  account: Account,
  questions: AccessQuestion[],
  expected: boolean,
) {
  const wrong: string[] = [];
  for (const question of questions) {
    const allowed = await canI(admin, { namespace: SYSTEM, name: account }, question);
    if (allowed !== expected) wrong.push(describeQuestion(question));
  }
  return wrong;
}

/** Service accounts with any grant (the others are covered by the denial matrix alone). */
const GRANTED = DEPLOY.serviceAccounts.filter((account) => ALLOWED[account].length > 0);

let deployed: DeployedHarness;

describeWithKube('deploy/ RBAC, by SubjectAccessReview against the real authorizer', () => {
  beforeAll(async () => {
    deployed = await startDeployedHarness();
  }, HARNESS_START_TIMEOUT_MS);

  afterAll(async () => {
    await deployed?.harness.stop();
  }, 60_000);

  it('creates one service account per service, with no token for those that need no API', async () => {
    const core = deployed.admin.makeApiClient(CoreV1Api);
    const accounts = await core.listNamespacedServiceAccount({ namespace: SYSTEM });
    const ours = accounts.items.filter((account) => account.metadata?.name !== 'default');
    expect(ours.map((account) => account.metadata?.name).sort()).toEqual([...DEPLOY.serviceAccounts].sort());
    const tokenless = ours.filter((account) => account.automountServiceAccountToken === false);
    expect(tokenless.map((account) => account.metadata?.name).sort()).toEqual([
      'dashboard',
      'redemption-handoff',
    ]);
  });

  it('asks only about resources the API server serves, so a typo cannot pass for a denial', async () => {
    const served = await servedResources(deployed.harness);
    const asked = [...Object.values(ALLOWED).flat(), ...DENIED_TO_ALL].filter(
      (question) => question.resource !== '*' && question.resource !== 'users',
    );
    const unknown = asked
      .map((q) => `${q.group ?? ''}/${q.resource}${q.subresource ? `/${q.subresource}` : ''}`)
      .filter((resource) => !served.has(resource));
    expect(unknown).toEqual([]);
  });

  it.each(GRANTED)('%s is allowed every verb it needs', async (account) => {
    expect(await mismatches(deployed.admin, account, ALLOWED[account], true)).toEqual([]);
  });

  it.each(DEPLOY.serviceAccounts)(
    '%s is denied what the others need, and everything else we ask',
    async (account) => {
      expect(await mismatches(deployed.admin, account, deniedTo(account), false)).toEqual([]);
    },
  );

  it("lets the adapter's own token read its bootstrap Secret and nothing else", async () => {
    const core = deployed.admin.makeApiClient(CoreV1Api);
    for (const name of [BOOTSTRAP, 'orchestrator-wallet']) {
      await core.createNamespacedSecret({
        namespace: SYSTEM,
        body: { metadata: { name }, stringData: { secret: name } },
      });
    }
    const adapter = (await serviceAccountKubeConfig(deployed.admin, SYSTEM, 'adapter')).makeApiClient(
      CoreV1Api,
    );
    const secret = await adapter.readNamespacedSecret({ name: BOOTSTRAP, namespace: SYSTEM });
    expect(Buffer.from(secret.data?.['secret'] ?? '', 'base64').toString()).toBe(BOOTSTRAP);
    await expect(
      adapter.readNamespacedSecret({ name: 'orchestrator-wallet', namespace: SYSTEM }),
    ).rejects.toMatchObject({ code: 403 });
    await expect(adapter.listNamespacedSecret({ namespace: SYSTEM })).rejects.toMatchObject({ code: 403 });
  });

  it("lets the drain controller's own token patch the orchestrator Deployment and no other", async () => {
    const apps = deployed.admin.makeApiClient(AppsV1Api);
    for (const name of [NODE, 'redis']) {
      const labels = { 'app.kubernetes.io/name': name };
      await apps.createNamespacedDeployment({
        namespace: SYSTEM,
        body: {
          metadata: { name },
          spec: {
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: { containers: [{ name, image: name }] } },
          },
        },
      });
    }
    const drain = (await serviceAccountKubeConfig(deployed.admin, SYSTEM, 'drain-controller')).makeApiClient(
      AppsV1Api,
    );
    const patch = [
      {
        op: 'add',
        path: '/spec/template/metadata/annotations',
        value: { 'kubectl.kubernetes.io/restartedAt': 'now' },
      },
    ];
    const patched = await drain.patchNamespacedDeployment({ name: NODE, namespace: SYSTEM, body: patch });
    expect(patched.spec?.template.metadata?.annotations).toEqual({
      'kubectl.kubernetes.io/restartedAt': 'now',
    });
    await expect(
      drain.patchNamespacedDeployment({ name: 'redis', namespace: SYSTEM, body: patch }),
    ).rejects.toMatchObject({ code: 403 });
    await expect(drain.listNamespacedDeployment({ namespace: SYSTEM })).rejects.toMatchObject({ code: 403 });
  });
});
