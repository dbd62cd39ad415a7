import { Router } from 'express';

/**
 * `GET /v1/openapi.json`, answering `document`: the service's OpenAPI document, generated once from
 * its route contracts (`openApiDocument` of `@sandbox/protocol`).
 */
export function openApiRouter(document: Record<string, unknown>): Router {
  const router = Router();
  router.get('/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  return router;
}
