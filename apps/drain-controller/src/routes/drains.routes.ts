import {
  CreateDrainRequestSchema,
  DrainIdSchema,
  ErrorCode,
  ExtendDrainRequestSchema,
  type DrainRecord,
} from '@sandbox/protocol';
import { AppError, NotFoundError, validate } from '@sandbox/service-kit';
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
  finished: (record) => new AppError(ErrorCode.DrainFinished, 409, `the drain has ended (${record.phase})`),
  phase: (record) =>
    new AppError(
      ErrorCode.DrainPhaseConflict,
      409,
      `the deadline can no longer move (phase ${record.phase})`,
    ),
  'window-exceeded': () =>
    new AppError(ErrorCode.DrainWindowExceeded, 409, 'the deadline would be more than 12 h after the start'),
};

function answer(result: ApplyResult): DrainRecord {
  if (result.kind === 'missing') throw new NotFoundError('no such drain');
  if (result.kind === 'refused') throw REFUSALS[result.refusal](result.record);
  return result.record;
}

/** `/v1/drains`: start, list, read, abort and extend drains. */
export function drainsRouter(deps: DrainsRouterDeps): Router {
  const router = Router();
  const drainId = (value: unknown): string => validate(DrainIdSchema, value, 'id');

  router.post('/v1/drains', async (req, res) => {
    const body = validate(CreateDrainRequestSchema, req.body, 'body');
    const created = await deps.drains.create({
      reason: body.reason,
      target: body.target,
      windowMs: body.window ?? deps.defaults.windowMs,
      quietPeriodMs: body.quietPeriod ?? deps.defaults.quietPeriodMs,
    });
    if (created.kind === 'in-progress') {
      throw new AppError(ErrorCode.DrainInProgress, 409, `drain ${created.activeId} is in progress`);
    }
    res.status(201).location(`/v1/drains/${created.record.id}`).json(created.record);
  });

  router.get('/v1/drains', async (_req, res) => {
    res.json({ drains: await deps.store.list(LIST_LIMIT) });
  });

  router.get('/v1/drains/:id', async (req, res) => {
    const record = await deps.drains.get(drainId(req.params.id));
    if (record === undefined) throw new NotFoundError('no such drain');
    res.json(record);
  });

  router.post('/v1/drains/:id/abort', async (req, res) => {
    res.json(answer(await deps.drains.apply(drainId(req.params.id), { type: 'abort' })));
  });

  router.post('/v1/drains/:id/extend', async (req, res) => {
    const id = drainId(req.params.id);
    const { by } = validate(ExtendDrainRequestSchema, req.body, 'body');
    res.json(answer(await deps.drains.apply(id, { type: 'extend', byMs: by })));
  });

  return router;
}
