// What the deployed system does when parts of it go away: a lease holder's pod deleted (its standby
// takes over, nothing is registered twice), the instance-manager restarted (it adopts the app pods it
// finds), an app's NetworkPolicy deleted (restored, and the matrix holds again), an app deleted (its
// pods and policy go), and pods the apps admission policy must refuse.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@sandbox/testing';
import { check, expectEqual, type Log } from './check';
import { checkNoneMatrix } from './egress-checks';
import { APPS_NAMESPACE, SYSTEM_NAMESPACE } from './install';
import type { Kubectl } from './kubectl';
import type { SystemContext } from './system-checks';
import { appPods, discoveryRunners, readyPod } from './system-flow';

interface PodItem {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status: { conditions?: { type: string; status: string }[] };
}

const isReady = (pod: PodItem) =>
  pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

async function servicePods(kubectl: Kubectl, service: string): Promise<PodItem[]> {
  const list = await kubectl.json<{ items: PodItem[] }>([
    '-n',
    SYSTEM_NAMESPACE,
    'get',
    'pods',
    '-l',
    `app.kubernetes.io/name=${service}`,
  ]);
  return list.items.filter((pod) => !pod.metadata.deletionTimestamp);
}

/** The lease holder's pod (the ready one) is deleted: another pod becomes the holder. */
async function replaceHolder(kubectl: Kubectl, service: string): Promise<{ before: string; after: string }> {
  const holder = (await servicePods(kubectl, service)).find(isReady);
  if (!holder) throw new Error(`${service} has no ready pod`);
  await kubectl.run(['-n', SYSTEM_NAMESPACE, 'delete', 'pod', holder.metadata.name, '--wait=false']);
  const next = await waitFor(
    async () =>
      (await servicePods(kubectl, service)).find(
        (pod) => isReady(pod) && pod.metadata.uid !== holder.metadata.uid,
      ),
    { description: `a new ${service} lease holder`, timeoutMs: 180_000, intervalMs: 1_000 },
  );
  return { before: holder.metadata.name, after: next.metadata.name };
}

/** Each ready pod of `app` is listed once in Node's discovery, and no runner twice. */
async function registeredOnce(context: SystemContext, app: string): Promise<string[]> {
  let last: string[] = [];
  await waitFor(
    async () => {
      const ready = (await appPods(context.provider.kubectl, app)).filter((pod) => pod.ready).length;
      const urls = (await discoveryRunners(context.nodeUrl, app)).map((runner) => runner.url);
      last = [
        ...expectEqual(`${app} runners in discovery vs ready pods`, urls.length, ready),
        ...expectEqual(
          `${app} runner URLs listed twice`,
          urls.filter((u, i) => urls.indexOf(u) !== i),
          [],
        ),
      ];
      return last.length === 0;
    },
    { description: `${app}'s runners to match its ready pods`, timeoutMs: 120_000, intervalMs: 2_000 },
  ).catch(() => undefined);
  return last;
}

const podNames = async (kubectl: Kubectl) =>
  (await kubectl.json<{ items: PodItem[] }>(['-n', APPS_NAMESPACE, 'get', 'pods'])).items
    .filter((pod) => !pod.metadata.deletionTimestamp)
    .map((pod) => pod.metadata.name)
    .sort();

/** Lease failover of the adapter, then the instance-manager's restart and adoption. */
export async function failoverChecks(context: SystemContext, log: Log): Promise<void> {
  const kubectl = context.provider.kubectl;
  const adapter = await replaceHolder(kubectl, 'adapter');
  check(log, `adapter holder ${adapter.before} deleted: ${adapter.after} took the lease, every runner once`, [
    ...(await registeredOnce(context, 'echo')),
  ]);
  const before = await podNames(kubectl);
  const manager = await replaceHolder(kubectl, 'instance-manager');
  // Long enough for a new holder to reconcile every app: a pod it failed to adopt would be replaced.
  await new Promise((resolve) => setTimeout(resolve, 20_000));
  check(log, `instance-manager holder ${manager.before} deleted: ${manager.after} adopted the app pods`, [
    ...expectEqual('app pods', await podNames(kubectl), before),
    ...(await registeredOnce(context, 'echo')),
  ]);
}

/** The app's NetworkPolicy deleted by hand comes back, and the `none` matrix holds again. */
export async function policyRestoreCheck(context: SystemContext, log: Log): Promise<void> {
  const kubectl = context.provider.kubectl;
  const name = 'sandbox-app-echo';
  const uid = async () =>
    (await kubectl.json<{ metadata: { uid: string } }>(['-n', APPS_NAMESPACE, 'get', 'networkpolicy', name]))
      .metadata.uid;
  const old = await uid();
  await kubectl.run(['-n', APPS_NAMESPACE, 'delete', 'networkpolicy', name]);
  const restored = await waitFor(
    async () =>
      uid()
        .then((now) => (now !== old ? now : undefined))
        .catch(() => undefined),
    {
      description: `${name} to be restored`,
      timeoutMs: 60_000,
      intervalMs: 500,
    },
  );
  log(`ok   NetworkPolicy ${name} deleted by hand is restored (uid ${restored.slice(0, 8)})`);
  await checkNoneMatrix(
    context.provider,
    await readyPod(kubectl, 'echo'),
    await readyPod(kubectl, 'echo-net'),
    'egress: none again after the restore',
    log,
  );
}

/** `DELETE /v1/apps/{app}`: its pods and its NetworkPolicy go, and Node lists none of its runners. */
export async function appDeletionCheck(context: SystemContext, app: string, log: Log): Promise<void> {
  const kubectl = context.provider.kubectl;
  const response = await fetch(`${context.managerUrl}/v1/apps/${app}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${context.managerToken}` },
  });
  if (response.status >= 300)
    throw new Error(`DELETE /v1/apps/${app}: ${response.status} ${await response.text()}`);
  const left = async () => {
    const pods = await kubectl.json<{ items: unknown[] }>([
      '-n',
      APPS_NAMESPACE,
      'get',
      'pods',
      '-l',
      `sandbox-runtime/app=${app}`,
    ]);
    const policies = await kubectl.json<{ items: { metadata: { name: string } }[] }>([
      '-n',
      APPS_NAMESPACE,
      'get',
      'networkpolicies',
    ]);
    const runners = await discoveryRunners(context.nodeUrl, app);
    return {
      pods: pods.items.length,
      policy: policies.items.some((p) => p.metadata.name === `sandbox-app-${app}`),
      runners: runners.length,
    };
  };
  const gone = { pods: 0, policy: false, runners: 0 };
  let last = await left();
  await waitFor(async () => JSON.stringify((last = await left())) === JSON.stringify(gone), {
    description: `${app}'s pods, policy and runners to go`,
    timeoutMs: 180_000,
    intervalMs: 2_000,
  }).catch(() => undefined);
  check(
    log,
    `app ${app} deleted: its pods, NetworkPolicy and runners are gone`,
    expectEqual(app, last, gone),
  );
}

type PodJson = {
  metadata: Record<string, unknown> & { name: string };
  spec: Record<string, unknown> & { containers: Record<string, unknown>[] };
};

/** A running app pod as a creatable object: no status, no server-set fields, a new name. */
function podTemplate(pod: PodJson, suffix: string): PodJson {
  const { name, namespace, labels, annotations } = pod.metadata;
  const spec = structuredClone(pod.spec);
  delete spec['nodeName'];
  return { metadata: { name: `${name}-${suffix}`.slice(0, 63), namespace, labels, annotations }, spec };
}

/** Server-side dry-run creates: our pod is admitted; each unsafe change of it is refused. */
export async function admissionCheck(kubectl: Kubectl, log: Log): Promise<void> {
  const pod = await readyPod(kubectl, 'echo');
  const live = await kubectl.json<PodJson>(['-n', APPS_NAMESPACE, 'get', 'pod', pod.name]);
  const variants: [string, (p: PodJson) => void][] = [
    ['unchanged (control)', () => undefined],
    ['without the gvisor RuntimeClass', (p) => delete p.spec['runtimeClassName']],
    [
      'privileged',
      (p) => ((p.spec.containers[0] as { securityContext: object }).securityContext = { privileged: true }),
    ],
    ['on the host network', (p) => (p.spec['hostNetwork'] = true)],
    ['with a hostPath volume', (p) => (p.spec['volumes'] = [{ name: 'host', hostPath: { path: '/' } }])],
    ['with a service-account token', (p) => (p.spec['automountServiceAccountToken'] = true)],
  ];
  const dir = await mkdtemp(join(tmpdir(), 'admission-'));
  const failures: string[] = [];
  try {
    for (const [index, [name, change]] of variants.entries()) {
      const object = { apiVersion: 'v1', kind: 'Pod', ...podTemplate(live, `dry${index}`) };
      change(object);
      const file = join(dir, `${index}.json`);
      await writeFile(file, JSON.stringify(object));
      const result = await kubectl
        .run(['create', '--dry-run=server', '-f', file], { timeoutMs: 60_000 })
        .then(
          () => 'admitted',
          (error: Error) => `refused: ${error.message.split('\n').slice(1, 2).join(' ')}`,
        );
      const expected = index === 0 ? 'admitted' : 'refused';
      if (!result.startsWith(expected)) failures.push(`${name}: ${result}, expected ${expected}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  check(log, `admission: our app pod admitted, ${variants.length - 1} unsafe shapes of it refused`, failures);
}
