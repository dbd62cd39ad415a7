// The RBAC matrix of deploy/: what each service account may do, and near misses every one of them
// must be refused. The harness asks the API server's authorizer (SubjectAccessReview); the k3d suite
// asks a real cluster the same questions with `kubectl auth can-i --as`.
import type { AccessQuestion } from '../control-plane/service-accounts';
import { DEPLOY } from '../test-support/deployed-harness.fixture';

const SYSTEM = DEPLOY.systemNamespace;
const APPS = DEPLOY.appsNamespace;
const NODE = DEPLOY.orchestratorDeployment;
const BOOTSTRAP = DEPLOY.adapterSecret;
/** One of deploy/'s service accounts in sandbox-system. */
export type Account = (typeof DEPLOY.serviceAccounts)[number];

const on = (resource: string, verbs: string[], extra: Omit<AccessQuestion, 'verb' | 'resource'> = {}) =>
  verbs.map((verb): AccessQuestion => ({ verb, resource, ...extra }));

/** Everything each service account needs; anything not listed here is denied to it. */
export const ALLOWED: Record<Account, AccessQuestion[]> = {
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
  dashboard: [],
};

/** Near misses of the grants above and escalation paths: denied to every service account. */
export const DENIED_TO_ALL: AccessQuestion[] = [
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

/** A question in words, the key the matrix compares questions by. */
export function describeQuestion(q: AccessQuestion): string {
  const target = `${q.group ? `${q.group}/` : ''}${q.resource}${q.subresource ? `/${q.subresource}` : ''}`;
  return `${q.verb} ${target}${q.name ? ` ${q.name}` : ''} in ${q.namespace ?? 'the cluster'}`;
}

/** Every question `account` must be refused: the others' grants it lacks, and {@link DENIED_TO_ALL}. */
export function deniedTo(account: Account): AccessQuestion[] {
  const own = new Set(ALLOWED[account].map(describeQuestion));
  const others = DEPLOY.serviceAccounts
    .filter((other) => other !== account)
    .flatMap((other) => ALLOWED[other]);
  return [...others, ...DENIED_TO_ALL].filter((question) => !own.has(describeQuestion(question)));
}
