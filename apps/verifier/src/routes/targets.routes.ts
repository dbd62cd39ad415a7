import {
  AppAttemptsResponseSchema,
  verifierRoutes as routes,
  SignedEvaluationReportSchema,
  TargetListResponseSchema,
  TargetStatusSchema,
} from '@sandbox/protocol';
import { orRedisUnavailable } from '@sandbox/queue';
import { NotFoundError, serveRoute } from '@sandbox/service-kit';
import { Router } from 'express';
import type { EvaluationStore } from '../store/evaluation-store';
import { targetView } from '../store/freshness';

/** Results by target, and the signed reports behind them. */
export function targetsRouter(deps: { store: EvaluationStore; now: () => number }): Router {
  const router = Router();
  serveRoute(router, routes.listTargets, async (_request, _req, res) => {
    const records = await orRedisUnavailable(() => deps.store.listTargets());
    const targets = records.map((record) => {
      const { attempts: _attempts, ...view } = targetView(record, deps.now());
      return view;
    });
    res.json(TargetListResponseSchema.parse({ targets }));
  });
  serveRoute(router, routes.getTarget, async ({ params: { runnerId } }, _req, res) => {
    const record = await orRedisUnavailable(() => deps.store.getTarget(runnerId));
    if (!record) throw new NotFoundError('no evaluation of this runner');
    res.json(TargetStatusSchema.parse(targetView(record, deps.now())));
  });
  serveRoute(router, routes.getAppAttempts, async ({ params: { app } }, _req, res) => {
    const attempts = await orRedisUnavailable(() => deps.store.getAppAttempts(app));
    res.json(AppAttemptsResponseSchema.parse({ app, attempts }));
  });
  serveRoute(router, routes.getReport, async ({ params: { reportId } }, _req, res) => {
    const report = await orRedisUnavailable(() => deps.store.getReport(reportId));
    if (!report) throw new NotFoundError('no such report');
    res.json(SignedEvaluationReportSchema.parse(report));
  });
  return router;
}
