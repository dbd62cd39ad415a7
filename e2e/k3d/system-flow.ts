// The cluster's system flow in parts: declaring an app through the instance-manager API, its pods,
// and what Node (node-sim) lists in discovery.
import { DiscoveryResponseSchema, type AppSpecInput, type DiscoveryRunner } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';
import { APPS_NAMESPACE } from './install';
import type { Kubectl } from './kubectl';

/** A pod of an app, as the suite needs it. */
export interface AppPod {
  name: string;
  ip: string;
  runtimeClassName?: string;
  ready: boolean;
}

interface PodList {
  items: {
    metadata: { name: string; deletionTimestamp?: string };
    spec: { runtimeClassName?: string };
    status: { podIP?: string; phase?: string; conditions?: { type: string; status: string }[] };
  }[];
}

/** `PUT /v1/apps/{app}` with the instance-manager's admin token. */
export async function declareApp(
  baseUrl: string,
  token: string,
  app: string,
  spec: AppSpecInput,
): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/apps/${app}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(spec),
  });
  if (response.status >= 300)
    throw new Error(`PUT /v1/apps/${app}: ${response.status} ${await response.text()}`);
}

/** The app's live pods (the kubernetes driver labels each with its app). */
export async function appPods(kubectl: Kubectl, app: string): Promise<AppPod[]> {
  const list = await kubectl.json<PodList>([
    '-n',
    APPS_NAMESPACE,
    'get',
    'pods',
    '-l',
    `sandbox-runtime/app=${app}`,
  ]);
  return list.items
    .filter((pod) => !pod.metadata.deletionTimestamp)
    .map((pod) => ({
      name: pod.metadata.name,
      ip: pod.status.podIP ?? '',
      runtimeClassName: pod.spec.runtimeClassName,
      ready: pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
    }));
}

/** Waits until `count` pods of the app are Ready. */
export async function waitForReadyPods(kubectl: Kubectl, app: string, count: number): Promise<AppPod[]> {
  return waitFor(
    async () => {
      const ready = (await appPods(kubectl, app)).filter((pod) => pod.ready);
      return ready.length >= count ? ready : undefined;
    },
    { description: `${count} ready pods of ${app}`, timeoutMs: 600_000, intervalMs: 2_000 },
  );
}

/** The app's runners as Node (node-sim) lists them on `GET /discovery`. */
export async function discoveryRunners(nodeUrl: string, app: string): Promise<DiscoveryRunner[]> {
  const response = await fetch(`${nodeUrl}/discovery`);
  const entries = DiscoveryResponseSchema.parse(await response.json());
  return entries.flatMap((entry) => entry.runners).filter((runner) => runner.app === app);
}

/** How many runners of the app Node lists. */
export async function discoveredRunners(nodeUrl: string, app: string): Promise<number> {
  return (await discoveryRunners(nodeUrl, app)).length;
}

/** Waits until Node lists at least `count` runners of the app. */
export async function waitForRunners(nodeUrl: string, app: string, count: number): Promise<number> {
  return waitFor(
    async () => {
      const found = await discoveredRunners(nodeUrl, app);
      return found >= count ? found : undefined;
    },
    { description: `${count} runners of ${app} registered with Node`, timeoutMs: 300_000, intervalMs: 2_000 },
  );
}

/** One ready pod of the app now (single-session pods are replaced once a session takes them). */
export async function readyPod(kubectl: Kubectl, app: string): Promise<AppPod> {
  return (await waitForReadyPods(kubectl, app, 1))[0] as AppPod;
}
