import type { IncomingMessage, ServerResponse } from 'node:http';
import { isHttpUrl, NodeErrorMessage, NodeHeader, NodeLimits } from '@sandbox/protocol';
import {
  decodeString,
  decodeStringArray,
  forEachField,
  GoJsonError,
  parseJsonKeepingNumbers,
} from '../go/go-json';
import { readBody } from '../http/body';
import { fail, writeJson } from '../http/respond';
import type { PathValues, RouteHandler, Router } from '../http/router';
import type { SimContext } from '../sim-context';

/** Trickle channels node-wide; 256 are kept for runners' O2R channels. */
const MAX_TRICKLE_CHANNELS = 1024;

interface Scope {
  runnerId: string;
  sessionId: string;
  token: string;
}

function scope(req: IncomingMessage, params: PathValues): Scope {
  const token = req.headers[NodeHeader.SessionToken.toLowerCase()];
  return {
    runnerId: params.runner_id ?? '',
    sessionId: params.session_id ?? '',
    token: typeof token === 'string' ? token : '',
  };
}

/** Reads a control body with Go semantics; `undefined` when Node's decode would fail. */
async function decodeBody<T>(req: IncomingMessage, decode: (value: unknown) => T): Promise<T | undefined> {
  const body = await readBody(req, NodeLimits.maxControlBodyBytes);
  if (!body) return undefined;
  try {
    return decode(parseJsonKeepingNumbers(body.toString('utf8')));
  } catch (error) {
    if (error instanceof GoJsonError) return undefined;
    throw error;
  }
}

function decodeChannelRequests(value: unknown): Array<{ name: string; mimeType: string }> {
  let items: unknown[] = [];
  forEachField(value, ['channels'], (_field, channels) => {
    if (channels !== null && !Array.isArray(channels)) throw new GoJsonError('expected array');
    items = channels ?? [];
  });
  return items.map((item) => {
    const channel = { name: '', mimeType: '' };
    forEachField(item, ['name', 'mime_type'], (field, fieldValue) => {
      if (field === 'name') channel.name = decodeString(fieldValue, channel.name);
      else channel.mimeType = decodeString(fieldValue, channel.mimeType);
    });
    return channel;
  });
}

async function createChannels(
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  { runnerId, sessionId }: Scope,
): Promise<void> {
  const requested = await decodeBody(req, decodeChannelRequests);
  if (!requested || requested.length > NodeLimits.maxChannelsPerRequest)
    return fail(res, 400, NodeErrorMessage.InvalidChannelsRequest);
  const signal = ctx.sessions.sessionSignal(runnerId, sessionId);
  if (!signal || signal.aborted) return fail(res, 404, NodeErrorMessage.SessionNotFound);
  if (requested.some((item) => item.name === '')) return fail(res, 400, NodeErrorMessage.ChannelNameRequired);
  const existing = new Map(
    ctx.channels.sessionChannels(runnerId, sessionId).map(([id, channel]) => [channel.name, id]),
  );
  const missing = new Map<string, string>();
  for (const item of requested)
    if (!existing.has(item.name) && !missing.has(item.name))
      missing.set(item.name, ctx.state.newId('channel'));
  if (ctx.channels.channels.size + missing.size > MAX_TRICKLE_CHANNELS - NodeLimits.maxRunners) {
    return fail(res, 503, NodeErrorMessage.TooManyChannels);
  }
  const result = requested.map((item) => {
    let id = existing.get(item.name);
    if (id === undefined) {
      id = missing.get(item.name) ?? ctx.state.newId('channel');
      ctx.channels.open(id, item.name, item.mimeType || 'application/octet-stream', runnerId, sessionId);
      existing.set(item.name, id);
    }
    const channel = ctx.channels.channels.get(id);
    // Go encodes map[string]string with sorted keys.
    return {
      channel_name: id,
      internal_url: `${ctx.state.config.runnerServiceUrl}/ai/trickle/${id}`,
      mime_type: channel?.mimeType ?? item.mimeType,
      name: channel?.name ?? item.name,
      url: `${ctx.state.config.serviceUrl}/ai/trickle/${id}`,
    };
  });
  writeJson(res, 200, { channels: result });
}

async function deleteChannels(
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  { runnerId, sessionId }: Scope,
): Promise<void> {
  const names = await decodeBody(req, (value) => {
    let list: string[] = [];
    forEachField(value, ['channels'], (_field, channels) => (list = decodeStringArray(channels)));
    return list;
  });
  if (!names) return fail(res, 400, NodeErrorMessage.InvalidChannelsRequest);
  const deleted: string[] = [];
  for (const name of names) {
    for (const [id, channel] of ctx.channels.sessionChannels(runnerId, sessionId)) {
      if (id !== name && channel.name !== name) continue;
      ctx.channels.close(id);
      deleted.push(name);
    }
  }
  writeJson(res, 200, { deleted });
}

async function createProxy(
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  { runnerId, sessionId, token }: Scope,
): Promise<void> {
  const targetUrl = await decodeBody(req, (value) => {
    let target = '';
    forEachField(value, ['target_url'], (_field, fieldValue) => (target = decodeString(fieldValue, target)));
    return target;
  });
  if (targetUrl === undefined) return fail(res, 400, NodeErrorMessage.InvalidProxyJson);
  let target: URL;
  if (targetUrl === '') {
    const route = ctx.sessions.sessionRoute(runnerId, sessionId);
    if (!route.ok) return fail(res, 400, route.error);
    target = route.value.target;
  } else if (isHttpUrl(targetUrl)) target = new URL(targetUrl);
  else return fail(res, 400, 'destination must be an absolute HTTP or HTTPS URL');
  const added = ctx.sessions.addProxy(runnerId, sessionId, token, target);
  if (!added.ok) return fail(res, 403, NodeErrorMessage.InvalidSessionToken);
  writeJson(res, 200, { proxy_id: added.value, url: ctx.state.proxyUrl(added.value) });
}

type ScopedHandler = (
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  scope: Scope,
) => Promise<void>;

/** A session callback: Node answers 403 before anything else unless the session token is the session's. */
function scoped(ctx: SimContext, handler: ScopedHandler): RouteHandler {
  return (req, res, params) => {
    const session = scope(req, params);
    if (!ctx.sessions.validSessionToken(session.runnerId, session.sessionId, session.token))
      return fail(res, 403, NodeErrorMessage.InvalidSessionToken);
    return handler(ctx, req, res, session);
  };
}

/** Runner callbacks under `Livepeer-Session-Control`: session channels and generated proxies. */
export function addSessionCallbackRoutes(router: Router, ctx: SimContext): void {
  const channels = '/runner/{runner_id}/session/{session_id}/channels';
  router
    .add('POST', channels, scoped(ctx, createChannels))
    .add('DELETE', channels, scoped(ctx, deleteChannels))
    .add('POST', '/runner/{runner_id}/session/{session_id}/proxy', scoped(ctx, createProxy));
}
