import { drainControllerRoutes as routes, ErrorCode, type DrainRecord } from '@sandbox/protocol';
import { AppError, NotFoundError, serveRoute } from '@sandbox/service-kit';
import { Router } from 'express';
import type { DrainRefusal } from '../machine/drain-machine';
import type { ApplyResult, Drains } from '../machine/drains';
import type { DrainStore } from '../store/drain-store';

/** Dependencies of {@link drainsRouter}. */
export interface DrainsRouterDeps {
  drains: Drains;
  store: DrainStore;
  defaults: { windowMs: number; quietPeriodMs: number };
}

const LIST_LIMIT = 100;

const REFUSALS: Record<DrainRefusal, (record: DrainRecord) => AppError> = {
  finished: (record) => new AppError(ErrorCode.DrainFinished, `the drain has ended (${record.phase})`),
  phase: (record) =>
    new AppError(ErrorCode.DrainPhaseConflict, `the deadline can no longer move (phase ${record.phase})`),
  'window-exceeded': () =>
    new AppError(ErrorCode.DrainWindowExceeded, 'the deadline would be more than 12 h after the start'),
};

function answer(result: ApplyResult): DrainRecord {
  if (result.kind === 'missing') throw new NotFoundError('no such drain');
  if (result.kind === 'refused') throw REFUSALS[result.refusal](result.record);
  return result.record;
}

/** `/v1/drains`: start, list, read, abort and extend drains. */
export function drainsRouter(deps: DrainsRouterDeps): Router {
  const router = Router();

  serveRoute(router, routes.createDrain, async ({ body }, _req, res) => {
    const created = await deps.drains.create({
      reason: body.reason,
      target: body.target,
      windowMs: body.window ?? deps.defaults.windowMs,
      quietPeriodMs: body.quietPeriod ?? deps.defaults.quietPeriodMs,
    });
    if (created.kind === 'in-progress') {
      throw new AppError(ErrorCode.DrainInProgress, `drain ${created.activeId} is in progress`);
    }
    res.status(201).location(`/v1/drains/${created.record.id}`).json(created.record);
  });

  serveRoute(router, routes.listDrains, async (_request, _req, res) => {
    res.json({ drains: await deps.store.list(LIST_LIMIT) });
  });

  serveRoute(router, routes.getDrain, async ({ params: { id } }, _req, res) => {
    const record = await deps.drains.get(id);
    if (record === undefined) throw new NotFoundError('no such drain');
    res.json(record);
  });

  serveRoute(router, routes.abortDrain, async ({ params: { id } }, _req, res) => {
    res.json(answer(await deps.drains.apply(id, { type: 'abort' })));
  });

  serveRoute(router, routes.extendDrain, async ({ params: { id }, body: { by } }, _req, res) => {
    res.json(answer(await deps.drains.apply(id, { type: 'extend', byMs: by })));
  });

  return router;
}
