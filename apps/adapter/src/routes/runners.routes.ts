import {
  adapterRoutes as routes,
  type AdapterDrainStatus,
  type RunnersQuery,
  type RunnersResponse,
  type RunnerView,
} from '@sandbox/protocol';
import { NotFoundError, serveRoute, type SecretScrubber } from '@sandbox/service-kit';
import { Router, type Response } from 'express';

/** What the routes read: the adapter's registrations. */
export interface RunnerSource {
  list(query: RunnersQuery): RunnerView[];
  get(instanceId: string): RunnerView | undefined;
  readonly drainStatus: AdapterDrainStatus;
}

/**
 * Sends JSON through the secret scrubber: the views are built from an allow-list and hold no
 * credential, and this makes sure no registered secret value can leave even through a Node error
 * message that quoted one.
 */
function sendScrubbed(res: Response, secrets: SecretScrubber, body: unknown): void {
  res.type('application/json').send(secrets.scrub(JSON.stringify(body)));
}

/** `GET /v1/runners` (filter by `state`, `app`) and `GET /v1/runners/{instanceId}`. */
export function runnersRouter(deps: { runners: RunnerSource; secrets: SecretScrubber }): Router {
  const router = Router();
  serveRoute(router, routes.listRunners, ({ query }, _req, res) => {
    const body: RunnersResponse = { runners: deps.runners.list(query), drain: deps.runners.drainStatus };
    sendScrubbed(res, deps.secrets, body);
  });
  serveRoute(router, routes.getRunner, ({ params: { instanceId } }, _req, res) => {
    const view = deps.runners.get(instanceId);
    if (view === undefined) throw new NotFoundError(`no registration for instance ${instanceId}`);
    sendScrubbed(res, deps.secrets, view);
  });
  return router;
}
