import { InstanceListQuerySchema, InstanceLogsQuerySchema, InstancePathSchema } from '@sandbox/protocol';
import type { InstanceLogs } from '@sandbox/protocol';
import { NotFoundError, validate } from '@sandbox/service-kit';
import { Router } from 'express';
import type { RuntimeDriver } from '../drivers/runtime-driver';
import { toInstanceResource } from '../store/instance-record';
import type { InstanceStore } from '../store/instance-store';
import type { LogArchive } from '../store/log-archive';
import { redisUnavailableAs503, validateParts } from './validate-parts';

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

  router.get('/v1/instances', async (req, res) => {
    const query = validate(InstanceListQuerySchema, req.query, 'query');
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
  router.get('/v1/instances/:instanceId', async (req, res) => {
    const { instanceId } = validate(InstancePathSchema, req.params, 'path');
    const found = await store.get(instanceId);
    if (!found) throw new NotFoundError('no such instance');
    res.json(toInstanceResource(found.record, found.sessions));
  });
  router.get('/v1/instances/:instanceId/logs', async (req, res) => {
    const [{ instanceId }, { tail }] = validateParts(
      ['path', InstancePathSchema, req.params],
      ['query', InstanceLogsQuerySchema, req.query],
    );
    const found = await store.get(instanceId);
    if (!found) throw new NotFoundError('no such instance');
    const { record } = found;
    const live =
      record.state === 'gone' ? undefined : await deps.driver.logs({ instanceId, app: record.app }, tail);
    const body: InstanceLogs = live
      ? { instanceId, source: 'live', lines: live }
      : { instanceId, source: 'archived', lines: (await deps.logs.read(instanceId, tail)) ?? [] };
    res.json(body);
  });
  router.use(redisUnavailableAs503);
  return router;
}
