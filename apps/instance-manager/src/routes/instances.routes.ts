import { instanceManagerRoutes as routes } from '@sandbox/protocol';
import type { InstanceLogs } from '@sandbox/protocol';
import { NotFoundError, serveRoute } from '@sandbox/service-kit';
import { Router } from 'express';
import type { RuntimeDriver } from '../drivers/runtime-driver';
import { toInstanceResource } from '../store/instance-record';
import type { InstanceStore } from '../store/instance-store';
import type { LogArchive } from '../store/log-archive';
import { redisUnavailableAs503 } from './redis-unavailable';

/** Dependencies of {@link instancesRouter}. */
export interface InstancesRouteDeps {
  store: InstanceStore;
  logs: LogArchive;
  driver: Pick<RuntimeDriver, 'logs'>;
}

/** `GET /v1/instances`, `GET /v1/instances/{id}` and its logs. */
export function instancesRouter(deps: InstancesRouteDeps): Router {
  const router = Router();
  const { store } = deps;

  serveRoute(router, routes.listInstances, async ({ query }, _req, res) => {
    const found = query.state === 'gone' ? await store.listGone() : await store.listLive(query.app);
    const instances = found
      .filter(
        ({ record }) =>
          (query.app === undefined || record.app === query.app) &&
          (query.state === undefined || record.state === query.state),
      )
      .map(({ record, sessions }) => toInstanceResource(record, sessions));
    res.json({ instances });
  });
  serveRoute(router, routes.getInstance, async ({ params: { instanceId } }, _req, res) => {
    const found = await store.get(instanceId);
    if (!found) throw new NotFoundError('no such instance');
    res.json(toInstanceResource(found.record, found.sessions));
  });
  serveRoute(
    router,
    routes.getInstanceLogs,
    async ({ params: { instanceId }, query: { tail } }, _req, res) => {
      const found = await store.get(instanceId);
      if (!found) throw new NotFoundError('no such instance');
      const { record } = found;
      const live =
        record.state === 'gone' ? undefined : await deps.driver.logs({ instanceId, app: record.app }, tail);
      const body: InstanceLogs = live
        ? { instanceId, source: 'live', lines: live }
        : { instanceId, source: 'archived', lines: (await deps.logs.read(instanceId, tail)) ?? [] };
      res.json(body);
    },
  );
  router.use(redisUnavailableAs503);
  return router;
}
