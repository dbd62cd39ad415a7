import {
  GO_JSON_NUMBER_PATTERN,
  HeartbeatResponseSchema,
  NodeErrorBodySchema,
  NodeHeader,
  NodeOkBodySchema,
  parseGoDurationMs,
  summarizeZodIssues,
  type HeartbeatRequest,
  type HeartbeatResponse,
} from '@sandbox/protocol';
import { BoundedMemo } from '@sandbox/service-kit';
import { NodeRequestError } from './errors';
import { callNode, type NodeReply } from './http-call';
import { defaultHttpTransport, type HttpTransport } from './http-transport';

/** Options of {@link createRunnerClient}. */
export interface RunnerClientOptions {
  /** @defaultValue {@link defaultHttpTransport} (undici, keep-alive connections pooled per origin) */
  transport?: HttpTransport;
}

/** Common arguments of the runner calls. */
export interface RunnerCallOptions {
  /** Deadline of the whole exchange; keep it below the heartbeat interval. */
  timeoutMs: number;
  /** Cancels the call; it then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** One `POST /runners/heartbeat`. */
export interface HeartbeatCall extends RunnerCallOptions {
  /** The bootstrap URL for a registration, then the `orchestrator` base Node returned. */
  baseUrl: string;
  /** The raw bootstrap secret (registration) or the runner's heartbeat credential. Secret. */
  credential: string;
  body: HeartbeatRequest;
}

/** A successful heartbeat, with Node's durations parsed. */
export interface HeartbeatResult {
  response: HeartbeatResponse;
  intervalMs: number;
  ttlMs: number;
  latencyMs: number;
}

/** One `POST /runners/{id}/unregister`. */
export interface UnregisterCall extends RunnerCallOptions {
  baseUrl: string;
  runnerId: string;
  /** The runner's heartbeat credential. Secret. */
  credential: string;
}

/** One `POST <Livepeer-Session-Control>/stop` by the runner. */
export interface StopSessionCall extends RunnerCallOptions {
  /** The `Livepeer-Session-Control` value Node injected into the session's requests. */
  controlUrl: string;
  /** The `Livepeer-Session-Token` of that session. Secret. */
  sessionToken: string;
}

/** Typed calls of Node's runner API. Every failure is a `NodeRequestError`. */
export interface RunnerClient {
  /**
   * Registers (with the bootstrap secret) or heartbeats (with the runner's credential). Resolves with
   * Node's answer; rejects on any non-200 status, transport failure or unusable body.
   */
  heartbeat(call: HeartbeatCall): Promise<HeartbeatResult>;
  /** Unregisters a runner; Node releases all its sessions. `unknown-runner` when Node answers 404. */
  unregister(
    call: UnregisterCall,
  ): Promise<{ outcome: 'unregistered' | 'unknown-runner'; latencyMs: number }>;
  /** Ends one session from the runner side. `unknown-session` when Node answers 404. */
  stopSession(call: StopSessionCall): Promise<{ outcome: 'stopped' | 'unknown-session'; latencyMs: number }>;
}

const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * The heartbeat body as JSON. A price given as decimal text is written as a JSON number digit for
 * digit (no float rounding on the way to Node's exact USD to wei conversion).
 */
export function encodeHeartbeatBody(body: HeartbeatRequest): string {
  const price = body.price_info?.price;
  if (typeof price === 'string' && GO_JSON_NUMBER_PATTERN.test(price)) {
    return JSON.stringify({ ...body, price_info: { ...body.price_info, price: rawJson(price) } });
  }
  return JSON.stringify(body);
}

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/u, '')}${path}`;
}

/** Node's `{"error": ...}` message; any other body is not echoed (it is not Node's and could hold anything). */
function errorFrom(route: string, reply: NodeReply): NodeRequestError {
  let reason = `HTTP ${reply.status}`;
  try {
    const parsed = NodeErrorBodySchema.safeParse(JSON.parse(reply.text));
    if (parsed.success) reason = parsed.data.error;
  } catch {
    // Not JSON: keep the status only.
  }
  return new NodeRequestError('http', reason, { status: reply.status, route });
}

function parseJson(route: string, reply: NodeReply): unknown {
  try {
    return JSON.parse(reply.text);
  } catch (error) {
    throw new NodeRequestError('invalid-response', 'body is not JSON', {
      status: reply.status,
      route,
      cause: error,
    });
  }
}

type HeartbeatAnswer = Omit<HeartbeatResult, 'latencyMs'>;

function validateHeartbeat(reply: NodeReply): HeartbeatAnswer {
  const parsed = HeartbeatResponseSchema.safeParse(parseJson('heartbeat', reply));
  if (!parsed.success) {
    const reason = `unexpected body: ${summarizeZodIssues(parsed.error)}`;
    throw new NodeRequestError('invalid-response', reason, { status: reply.status, route: 'heartbeat' });
  }
  const intervalMs = parseGoDurationMs(parsed.data.heartbeat_interval) ?? 0;
  const ttlMs = parseGoDurationMs(parsed.data.heartbeat_ttl) ?? 0;
  if (!(intervalMs > 0 && ttlMs > intervalMs)) {
    throw new NodeRequestError('invalid-response', 'heartbeat interval and TTL are unusable', {
      status: reply.status,
      route: 'heartbeat',
    });
  }
  return { response: parsed.data, intervalMs, ttlMs };
}

/**
 * Node's answer to a runner's steady heartbeats repeats byte for byte (its id, the same base,
 * durations and sessions), so each text is parsed and checked once. A registration's answer holds
 * the runner's new credential and is never kept. Kept answers are frozen: callers share them.
 */
function parseHeartbeat(reply: NodeReply, answers: BoundedMemo<HeartbeatAnswer>): HeartbeatResult {
  let answer = answers.get(reply.text);
  if (answer === undefined) {
    answer = validateHeartbeat(reply);
    if (answer.response.heartbeat_secret === undefined) {
      Object.freeze(answer.response.session_ids);
      answers.set(reply.text, Object.freeze({ ...answer, response: Object.freeze(answer.response) }));
    }
  }
  return { ...answer, latencyMs: reply.latencyMs };
}

function expectOk(route: string, reply: NodeReply): void {
  if (!NodeOkBodySchema.safeParse(parseJson(route, reply)).success) {
    throw new NodeRequestError('invalid-response', 'expected {"ok":true}', { status: reply.status, route });
  }
}

function postToNode(
  transport: HttpTransport,
  request: {
    route: string;
    url: string;
    headers: Record<string, string>;
    call: RunnerCallOptions;
    body?: string;
  },
): Promise<NodeReply> {
  const { call } = request;
  return callNode(transport, {
    method: 'POST',
    url: request.url,
    route: request.route,
    headers: request.headers,
    body: request.body,
    timeoutMs: call.timeoutMs,
    ...(call.signal === undefined ? {} : { signal: call.signal }),
  });
}

/** Creates the client of Node's runner-facing API (heartbeat, unregister, runner-side session stop). */
export function createRunnerClient(options: RunnerClientOptions = {}): RunnerClient {
  const transport = options.transport ?? defaultHttpTransport;
  const post = (
    route: string,
    url: string,
    headers: Record<string, string>,
    call: RunnerCallOptions,
    body?: string,
  ) => postToNode(transport, { route, url, headers, call, body });
  // Every runner heartbeats to the same `orchestrator` base: join it once, not per beat.
  let lastBase: string | undefined;
  let lastUrl = '';
  const heartbeatUrl = (base: string): string => {
    if (base !== lastBase) [lastBase, lastUrl] = [base, joinUrl(base, '/runners/heartbeat')];
    return lastUrl;
  };
  // Two answers per runner (Node's maximum is 256) before it starts over.
  const answers = new BoundedMemo<HeartbeatAnswer>(512);
  return {
    async heartbeat(call) {
      const headers = { [NodeHeader.Authorization]: call.credential, 'Content-Type': 'application/json' };
      const url = heartbeatUrl(call.baseUrl);
      const reply = await post('heartbeat', url, headers, call, encodeHeartbeatBody(call.body));
      if (reply.status !== 200) throw errorFrom('heartbeat', reply);
      return parseHeartbeat(reply, answers);
    },
    async unregister(call) {
      const url = joinUrl(call.baseUrl, `/runners/${encodeURIComponent(call.runnerId)}/unregister`);
      const reply = await post('unregister', url, { [NodeHeader.Authorization]: call.credential }, call);
      if (reply.status === 404) return { outcome: 'unknown-runner', latencyMs: reply.latencyMs };
      if (reply.status !== 200) throw errorFrom('unregister', reply);
      expectOk('unregister', reply);
      return { outcome: 'unregistered', latencyMs: reply.latencyMs };
    },
    async stopSession(call) {
      const url = joinUrl(call.controlUrl, '/stop');
      const reply = await post('session-stop', url, { [NodeHeader.SessionToken]: call.sessionToken }, call);
      if (reply.status === 404) return { outcome: 'unknown-session', latencyMs: reply.latencyMs };
      if (reply.status !== 200) throw errorFrom('session-stop', reply);
      expectOk('session-stop', reply);
      return { outcome: 'stopped', latencyMs: reply.latencyMs };
    },
  };
}
