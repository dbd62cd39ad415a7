import { Router } from 'express';
import { buildOpenApiDocument } from './openapi-document';

/** `GET /v1/openapi.json`: built once, from the same schemas the routes validate with. */
export function openApiRouter(): Router {
  const document = buildOpenApiDocument();
  const router = Router();
  router.get('/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  return router;
}
