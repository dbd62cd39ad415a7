import { randomUUID } from 'node:crypto';
import type { EVALUATIONS_QUEUE } from '@sandbox/protocol';
import { CreateEvaluationRequestSchema, type CreateEvaluationResponse } from '@sandbox/protocol';
import type { Producer } from '@sandbox/queue';
import { validate } from '@sandbox/service-kit';
import { Router } from 'express';

/** `POST /v1/evaluations`: queues an on-demand run (202); the seed is drawn when it runs. */
export function evaluationsRouter(deps: {
  producer: Producer<typeof EVALUATIONS_QUEUE>;
  now: () => number;
}): Router {
  const router = Router();
  router.post('/v1/evaluations', async (req, res) => {
    const body = validate(CreateEvaluationRequestSchema, req.body, 'body');
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
