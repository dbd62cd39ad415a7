import { instanceManagerRoutes as routes } from '@sandbox/protocol';
import type { AppResource, InstanceCounts } from '@sandbox/protocol';
import { NotFoundError, serveRoute } from '@sandbox/service-kit';
import { Router } from 'express';
import type { Clock } from '@sandbox/service-kit';
import { lastStartFailure } from '../domain/start-failure';
import type { AppStore, StoredApp } from '../store/app-store';
import type { InstanceStore } from '../store/instance-store';
import { redisUnavailableAs503 } from './redis-unavailable';

/** Dependencies of {@link appsRouter}. */
export interface AppsRouteDeps {
  apps: AppStore;
  store: InstanceStore;
  clock: Clock;
  /** Reconcile the app soon (never awaited by a request). */
  reconcile(app: string): void;
}

type Records = Awaited<ReturnType<InstanceStore['listGone']>>;

function countInstances(live: Records): InstanceCounts {
  const counts: InstanceCounts = { starting: 0, ready: 0, taken: 0, withdrawing: 0 };
  for (const { record } of live) if (record.state !== 'gone') counts[record.state] += 1;
  return counts;
}

async function toResource(app: StoredApp, store: InstanceStore, gone?: Records): Promise<AppResource> {
  const live = await store.listLive(app.name);
  const records = [...(gone ?? (await store.listGone())), ...live].map((entry) => entry.record);
  const failure = lastStartFailure(app.name, records);
  return {
    name: app.name,
    spec: app.spec,
    templateHash: app.templateHash,
    status: app.status,
    createdAt: new Date(app.createdAt).toISOString(),
    updatedAt: new Date(app.updatedAt).toISOString(),
    instances: countInstances(live),
    ...(app.registrationRefusals.length > 0 ? { registrationRefusals: app.registrationRefusals } : {}),
    ...(failure ? { lastStartFailure: failure } : {}),
  };
}

/** `PUT/GET/DELETE /v1/apps/{app}` and `GET /v1/apps`. */
export function appsRouter(deps: AppsRouteDeps): Router {
  const router = Router();
  const load = async (name: string) => {
    const app = await deps.apps.get(name);
    if (!app) throw new NotFoundError('no such app');
    return app;
  };

  serveRoute(router, routes.putApp, async ({ params: { app: name }, body: spec }, _req, res) => {
    const result = await deps.apps.put(name, spec, deps.clock.now());
    deps.reconcile(name);
    res.status(result === 'created' ? 201 : 200).json(await toResource(await load(name), deps.store));
  });
  serveRoute(router, routes.listApps, async (_request, _req, res) => {
    const [apps, gone] = await Promise.all([deps.apps.list(), deps.store.listGone()]);
    res.json({ apps: await Promise.all(apps.map((app) => toResource(app, deps.store, gone))) });
  });
  serveRoute(router, routes.getApp, async ({ params: { app: name } }, _req, res) => {
    res.json(await toResource(await load(name), deps.store));
  });
  serveRoute(router, routes.deleteApp, async ({ params: { app: name } }, _req, res) => {
    if (!(await deps.apps.markDeleting(name, deps.clock.now()))) throw new NotFoundError('no such app');
    deps.reconcile(name);
    res.status(202).json(await toResource(await load(name), deps.store));
  });
  router.use(redisUnavailableAs503);
  return router;
}
