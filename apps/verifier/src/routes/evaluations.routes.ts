import { randomUUID } from 'node:crypto';
import type { CreateEvaluationRequest, EVALUATIONS_QUEUE } from '@sandbox/protocol';
import {
  ErrorCode,
  IdempotencyKeySchema,
  verifierRoutes as routes,
  type CreateEvaluationResponse,
} from '@sandbox/protocol';
import { orRedisUnavailable, type Producer } from '@sandbox/queue';
import { AppError, serveRoute, validate } from '@sandbox/service-kit';
import { Router } from 'express';
import type { OrderBook } from '../store/order-book';

/** The header a client sets to make `POST /v1/evaluations` safe to retry. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

interface EvaluationsDeps {
  producer: Producer<typeof EVALUATIONS_QUEUE>;
  store: { orders: OrderBook };
  now: () => number;
}

async function queue(deps: EvaluationsDeps, body: CreateEvaluationRequest, order: CreateEvaluationResponse) {
  const { evaluationId, requestedAt } = order;
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
    // The job id dedupes a replay racing the first request while its job is still queued.
    { jobId: evaluationId },
  );
}

/**
 * `POST /v1/evaluations`: queues an on-demand run (202); the seed is drawn when it runs. With an
 * `Idempotency-Key`, a retry of the same order answers the first run (`idempotent-replayed: true`)
 * and queues nothing new; the same key with another body is refused (422 `idempotency_key_reused`).
 */
export function evaluationsRouter(deps: EvaluationsDeps): Router {
  const router = Router();
  serveRoute(router, routes.createEvaluation, async ({ body }, req, res) => {
    const header = req.get(IDEMPOTENCY_KEY_HEADER);
    const key = header === undefined ? undefined : validate(IdempotencyKeySchema, header, 'Idempotency-Key');
    const fresh: CreateEvaluationResponse = {
      evaluationId: `od-${randomUUID()}`,
      requestedAt: new Date(deps.now()).toISOString(),
    };
    if (key === undefined) {
      await queue(deps, body, fresh);
      return void res.status(202).json(fresh);
    }
    const claim = await orRedisUnavailable(() => deps.store.orders.claim(key, body, fresh));
    if (claim.kind === 'conflict')
      throw new AppError(
        ErrorCode.IdempotencyKeyReused,
        'this Idempotency-Key was used for a different order',
      );
    const order = claim.kind === 'new' ? fresh : claim.order.response;
    if (claim.kind === 'new' || !claim.order.queued) {
      await queue(deps, body, order);
      await orRedisUnavailable(() => deps.store.orders.markQueued(key));
    }
    if (claim.kind === 'replay') res.setHeader('idempotent-replayed', 'true');
    res.status(202).json(order);
  });
  return router;
}
