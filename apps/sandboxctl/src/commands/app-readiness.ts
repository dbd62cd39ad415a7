import type { ApiClient } from '../client/api-client';
import { adapterRoutes } from '@sandbox/protocol';
import { instanceManagerRoutes as im } from '@sandbox/protocol';
import { declaredInstances } from './app-columns';

/** How far an app is from what it declares: instances of its current spec ready, and registered with Node. */
export interface AppReadiness {
  app: string;
  declared: number;
  ready: number;
  registered: number;
  /** Why the latest instance of the current spec failed, or Node refused a registration. */
  lastFailure?: string;
}

/** Reads an app's readiness from instance-manager (instances) and the adapter (registrations). */
export async function readAppReadiness(client: ApiClient, app: string): Promise<AppReadiness> {
  const [resource, { instances }, gone, { runners }] = await Promise.all([
    client.call(im.getApp, { params: { app } }),
    client.call(im.listInstances, { query: { app } }),
    client.call(im.listInstances, { query: { app, state: 'gone' } }),
    client.call(adapterRoutes.listRunners, { query: { app } }),
  ]);
  // Instances of an older spec are being replaced: only the current template counts.
  const current = new Set(
    instances
      .filter((instance) => instance.templateHash === resource.templateHash && instance.state === 'ready')
      .map((instance) => instance.instanceId),
  );
  const registered = runners.filter(
    (runner) => current.has(runner.instanceId) && runner.state === 'registered',
  );
  const failed = gone.instances
    .filter((instance) => instance.templateHash === resource.templateHash && instance.outcome === 'failed')
    .sort((a, b) => (b.goneAt ?? '').localeCompare(a.goneAt ?? ''))[0];
  const refusal = resource.registrationRefusals?.[0];
  const lastFailure = refusal
    ? `Node refused instance ${refusal.instanceId} (${refusal.status}): ${refusal.reason}`
    : failed
      ? `instance ${failed.instanceId} failed: ${failed.reason ?? 'no reason given'}`
      : undefined;
  return {
    app,
    declared: declaredInstances(resource.spec),
    ready: current.size,
    registered: registered.length,
    ...(lastFailure === undefined ? {} : { lastFailure }),
  };
}

/** True when at least the declared instances are ready and registered. */
export function isSettled(readiness: AppReadiness): boolean {
  return readiness.ready >= readiness.declared && readiness.registered >= readiness.declared;
}

/** `ready 1/2, registered 0/2 (instance x failed: ...)`. */
export function describeReadiness(readiness: AppReadiness): string {
  const counts = `ready ${readiness.ready}/${readiness.declared}, registered ${readiness.registered}/${readiness.declared}`;
  return readiness.lastFailure ? `${counts} (${readiness.lastFailure})` : counts;
}
