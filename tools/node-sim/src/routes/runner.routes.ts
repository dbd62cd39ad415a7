import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeErrorMessage, NodeHeader, NodeLimits } from '@sandbox/protocol';
import { readBody } from '../http/body';
import { fail, writeJson } from '../http/respond';
import type { PathValues, Router } from '../http/router';
import { GoJsonError } from '../go/go-json';
import type { HeartbeatFields } from '../registry/heartbeat-fields';
import { decodeHeartbeat } from '../registry/heartbeat-fields';
import type { SimContext } from '../sim-context';
import { addSessionCallbackRoutes } from './session-callback.routes';

function authorization(req: IncomingMessage): string {
  return req.headers.authorization ?? '';
}

/** The decoded body, `'invalid'` for a Go decode failure, `'too-large'` beyond 1 MiB. */
async function readHeartbeat(req: IncomingMessage): Promise<HeartbeatFields | 'invalid' | 'too-large'> {
  const body = await readBody(req, NodeLimits.maxControlBodyBytes);
  if (!body) return 'too-large';
  try {
    return decodeHeartbeat(body.toString('utf8'));
  } catch (error) {
    if (error instanceof GoJsonError) return 'invalid';
    throw error;
  }
}

/** `POST /runners/heartbeat`: pre-check, Go decode, registry rules, and the O2R channel on registration. */
async function heartbeat(ctx: SimContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const auth = authorization(req);
  if (!ctx.runners.acceptsHeartbeatCredential(auth)) {
    res.setHeader('Connection', 'close');
    return fail(res, 401, NodeErrorMessage.InvalidRunnerCredential);
  }
  const fields = await readHeartbeat(req);
  if (fields === 'invalid' || fields === 'too-large') {
    // The rest of an oversized body is never read, so the connection cannot be reused.
    if (fields === 'too-large') res.setHeader('Connection', 'close');
    return fail(res, 400, NodeErrorMessage.InvalidHeartbeatJson);
  }
  const outcome = ctx.runners.heartbeat(fields, auth);
  if (!outcome.ok) return fail(res, outcome.status, outcome.error);
  const result = outcome.value;
  let o2r: Record<string, string> | undefined;
  if (result.heartbeatSecret !== undefined) {
    const channelName = ctx.state.newId('channel');
    ctx.channels.openO2R(result.runnerId, channelName);
    o2r = {
      name: 'o2r',
      channel_name: channelName,
      url: `${ctx.state.config.runnerServiceUrl}/ai/trickle/${channelName}`,
      mime_type: 'application/json',
    };
  }
  // Field order of Node's heartbeatResponse struct.
  writeJson(res, 200, {
    runner_id: result.runnerId,
    orchestrator: result.orchestrator,
    heartbeat_interval: result.heartbeatInterval,
    heartbeat_ttl: result.heartbeatTtl,
    heartbeat_secret: result.heartbeatSecret,
    session_ids: result.sessionIds,
    o2r,
  });
}

function unregister(ctx: SimContext, req: IncomingMessage, res: ServerResponse, params: PathValues): void {
  const outcome = ctx.runners.unregister(params.runner_id ?? '', authorization(req));
  if (!outcome.ok) return fail(res, outcome.status, outcome.error);
  writeJson(res, 200, { ok: true });
}

function runnerStop(ctx: SimContext, req: IncomingMessage, res: ServerResponse, params: PathValues): void {
  const token = req.headers[NodeHeader.SessionToken.toLowerCase()];
  const outcome = ctx.sessions.release(
    params.runner_id ?? '',
    params.session_id ?? '',
    typeof token === 'string' ? token : '',
    true,
  );
  if (!outcome.ok) return fail(res, outcome.status, outcome.error);
  writeJson(res, 200, { ok: true });
}

/** The runner-facing routes: registration and the session callbacks of `Livepeer-Session-Control`. */
export function addRunnerRoutes(router: Router, ctx: SimContext): void {
  router
    .add('POST', '/runners/heartbeat', (req, res) => heartbeat(ctx, req, res))
    .add('POST', '/runners/{runner_id}/unregister', (req, res, params) => unregister(ctx, req, res, params))
    .add('POST', '/runner/{runner_id}/session/{session_id}/stop', (req, res, params) =>
      runnerStop(ctx, req, res, params),
    );
  addSessionCallbackRoutes(router, ctx);
}
