import {
  AppAttemptsResponseSchema,
  AppNameSchema,
  EvaluationIdSchema,
  RunnerIdSchema,
  SignedEvaluationReportSchema,
  TargetListResponseSchema,
  TargetStatusSchema,
} from '@sandbox/protocol';
import { orRedisUnavailable } from '@sandbox/queue';
import { NotFoundError, validate } from '@sandbox/service-kit';
import { Router } from 'express';
import type { EvaluationStore } from '../store/evaluation-store';
import { targetView } from '../store/freshness';

/** Results by target, and the signed reports behind them. */
export function targetsRouter(deps: { store: EvaluationStore; now: () => number }): Router {
  const router = Router();
  router.get('/v1/targets', async (_req, res) => {
    const records = await orRedisUnavailable(() => deps.store.listTargets());
    const targets = records.map((record) => {
      const { attempts: _attempts, ...view } = targetView(record, deps.now());
      return view;
    });
    res.json(TargetListResponseSchema.parse({ targets }));
  });
  router.get('/v1/targets/:runnerId', async (req, res) => {
    const runnerId = validate(RunnerIdSchema, req.params.runnerId, 'runnerId');
    const record = await orRedisUnavailable(() => deps.store.getTarget(runnerId));
    if (!record) throw new NotFoundError('no evaluation of this runner');
    res.json(TargetStatusSchema.parse(targetView(record, deps.now())));
  });
  router.get('/v1/apps/:app/attempts', async (req, res) => {
    const app = validate(AppNameSchema, req.params.app, 'app');
    const attempts = await orRedisUnavailable(() => deps.store.getAppAttempts(app));
    res.json(AppAttemptsResponseSchema.parse({ app, attempts }));
  });
  router.get('/v1/reports/:reportId', async (req, res) => {
    const reportId = validate(EvaluationIdSchema, req.params.reportId, 'reportId');
    const report = await orRedisUnavailable(() => deps.store.getReport(reportId));
    if (!report) throw new NotFoundError('no such report');
    res.json(SignedEvaluationReportSchema.parse(report));
  });
  return router;
}
