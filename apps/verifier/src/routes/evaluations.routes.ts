import { randomUUID } from 'node:crypto';
import type { EVALUATIONS_QUEUE } from '@sandbox/protocol';
import { verifierRoutes as routes, type CreateEvaluationResponse } from '@sandbox/protocol';
import type { Producer } from '@sandbox/queue';
import { serveRoute } from '@sandbox/service-kit';
import { Router } from 'express';

/** `POST /v1/evaluations`: queues an on-demand run (202); the seed is drawn when it runs. */
export function evaluationsRouter(deps: {
  producer: Producer<typeof EVALUATIONS_QUEUE>;
  now: () => number;
}): Router {
  const router = Router();
  serveRoute(router, routes.createEvaluation, async ({ body }, _req, res) => {
    const evaluationId = `od-${randomUUID()}`;
    const requestedAt = new Date(deps.now()).toISOString();
    await deps.producer.add(
      'run-evaluation',
      {
        evaluationId,
        target: body.target,
        requestedAt,
        trigger: 'on-demand',
        ...(body.evaluationsPerSession === undefined
          ? {}
          : { evaluationsPerSession: body.evaluationsPerSession }),
      },
      { jobId: evaluationId },
    );
    const answer: CreateEvaluationResponse = { evaluationId, requestedAt };
    res.status(202).json(answer);
  });
  return router;
}
