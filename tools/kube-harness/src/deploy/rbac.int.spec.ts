import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { canI, serviceAccountKubeConfig, type AccessQuestion } from '../control-plane/service-accounts';
import { servedResources } from '../test-support/api-get.fixture';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';
import { DEPLOY, startDeployedHarness, type DeployedHarness } from '../test-support/deployed-harness.fixture';

const SYSTEM = DEPLOY.systemNamespace;
const APPS = DEPLOY.appsNamespace;
const NODE = DEPLOY.orchestratorDeployment;
const BOOTSTRAP = DEPLOY.adapterSecret;
type Account = (typeof DEPLOY.serviceAccounts)[number];

const on = (resource: string, verbs: string[], extra: Omit<AccessQuestion, 'verb' | 'resource'> = {}) =>
  verbs.map((verb): AccessQuestion => ({ verb, resource, ...extra }));

/** Everything each service account needs; anything not listed here is denied to it. */
const ALLOWED: Record<Account, AccessQuestion[]> = {
  'instance-manager': [
    ...on('pods', ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], { namespace: APPS }),
    ...on('pods', ['get'], { namespace: APPS, subresource: 'log' }),
    ...on('networkpolicies', ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], {
      group: 'networking.k8s.io',
      namespace: APPS,
    }),
    ...on('nodes', ['get', 'list', 'watch']),
  ],
  adapter: on('secrets', ['get'], { namespace: SYSTEM, name: BOOTSTRAP }),
  'drain-controller': on('deployments', ['get', 'patch'], { group: 'apps', namespace: SYSTEM, name: NODE }),
  'redemption-handoff': [],
  verifier: [],
  dashboard: [],
};

/** Near misses of the grants above and escalation paths: denied to every service account. */
const DENIED_TO_ALL: AccessQuestion[] = [
  ...on('secrets', ['get', 'list', 'watch'], { namespace: SYSTEM }),
  ...on('secrets', ['get'], { namespace: SYSTEM, name: 'orchestrator-wallet' }),
  ...on('secrets', ['list', 'watch', 'update', 'patch', 'delete'], { namespace: SYSTEM, name: BOOTSTRAP }),
  ...on('secrets', ['get', 'list', 'watch'], { namespace: APPS }),
  ...on('secrets', ['list', 'watch']),
  ...on('pods', ['get', 'list', 'watch', 'create', 'delete'], { namespace: SYSTEM }),
  ...on('pods', ['list', 'create'], { namespace: 'default' }),
  ...on('pods', ['list', 'watch']),
  ...on('pods', ['deletecollection'], { namespace: APPS }),
  ...on('pods', ['create', 'get'], { namespace: APPS, subresource: 'exec' }),
  ...on('pods', ['create'], { namespace: APPS, subresource: 'attach' }),
  ...on('pods', ['create'], { namespace: APPS, subresource: 'portforward' }),
  ...on('pods', ['patch', 'update'], { namespace: APPS, subresource: 'ephemeralcontainers' }),
  ...on('pods', ['patch', 'update'], { namespace: APPS, subresource: 'status' }),
  ...on('networkpolicies', ['list', 'create'], { group: 'networking.k8s.io', namespace: SYSTEM }),
  ...on('deployments', ['list', 'watch', 'create'], { group: 'apps', namespace: SYSTEM }),
  ...on('deployments', ['update', 'delete'], { group: 'apps', namespace: SYSTEM, name: NODE }),
  ...on('deployments', ['get', 'patch'], { group: 'apps', namespace: SYSTEM, name: 'redis' }),
  ...on('deployments', ['patch', 'update'], {
    group: 'apps',
    namespace: SYSTEM,
    name: NODE,
    subresource: 'scale',
  }),
  ...on('deployments', ['get', 'patch'], { group: 'apps', namespace: APPS, name: NODE }),
  ...on('serviceaccounts', ['create'], { namespace: SYSTEM, name: 'adapter', subresource: 'token' }),
  ...on('roles', ['create', 'bind', 'escalate'], { group: 'rbac.authorization.k8s.io', namespace: APPS }),
  ...on('rolebindings', ['create'], { group: 'rbac.authorization.k8s.io', namespace: SYSTEM }),
  ...on('clusterrolebindings', ['create'], { group: 'rbac.authorization.k8s.io' }),
  ...on('users', ['impersonate']),
  ...on('serviceaccounts', ['impersonate'], { namespace: SYSTEM }),
  ...on('namespaces', ['list', 'create', 'delete']),
  ...on('nodes', ['patch', 'update', 'delete', 'create']),
  ...on('configmaps', ['get', 'list'], { namespace: SYSTEM }),
  ...on('runtimeclasses', ['create', 'delete'], { group: 'node.k8s.io' }),
  ...on('validatingadmissionpolicies', ['update', 'delete'], { group: 'admissionregistration.k8s.io' }),
  ...on('validatingadmissionpolicybindings', ['delete'], { group: 'admissionregistration.k8s.io' }),
  ...on('customresourcedefinitions', ['create'], { group: 'apiextensions.k8s.io' }),
  ...on('certificatesigningrequests', ['create'], { group: 'certificates.k8s.io' }),
  ...on('*', ['*'], { group: '*' }),
];

function describeQuestion(q: AccessQuestion): string {
  const target = `${q.group ? `${q.group}/` : ''}${q.resource}${q.subresource ? `/${q.subresource}` : ''}`;
  return `${q.verb} ${target}${q.name ? ` ${q.name}` : ''} in ${q.namespace ?? 'the cluster'}`;
}

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
      'verifier',
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
      const others = DEPLOY.serviceAccounts
        .filter((other) => other !== account)
        .flatMap((other) => ALLOWED[other]);
      const own = new Set(ALLOWED[account].map(describeQuestion));
      const forbidden = [...others, ...DENIED_TO_ALL].filter(
        (question) => !own.has(describeQuestion(question)),
      );
      expect(await mismatches(deployed.admin, account, forbidden, false)).toEqual([]);
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
        value: { 'sandbox-runtime/restarted-at': 'now' },
      },
    ];
    const patched = await drain.patchNamespacedDeployment({ name: NODE, namespace: SYSTEM, body: patch });
    expect(patched.spec?.template.metadata?.annotations).toEqual({ 'sandbox-runtime/restarted-at': 'now' });
    await expect(
      drain.patchNamespacedDeployment({ name: 'redis', namespace: SYSTEM, body: patch }),
    ).rejects.toMatchObject({ code: 403 });
    await expect(drain.listNamespacedDeployment({ namespace: SYSTEM })).rejects.toMatchObject({ code: 403 });
  });
});
