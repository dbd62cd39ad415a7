import {
  ErrorBodySchema,
  pathParameterNames,
  summarizeZodIssues,
  type RouteContract,
  type RouteInput,
  type RouteOutput,
} from '@sandbox/protocol';
import type { z } from 'zod';
import { CliError, ServiceError, UnreachableError, UsageError } from '../cli/errors';
import { accessHint } from '../token-files';

/** Where one service answers, and the file holding the bearer token to send it (if any). */
export interface ServiceEndpoint {
  url: string;
  tokenFile?: string;
  /** Where the token file was configured (a variable, a context, the embedded stack), for hints. */
  tokenSource?: string;
}

/** Options of {@link createApiClient}. */
export interface ApiClientOptions {
  /** Endpoints by service name. */
  endpoints: Readonly<Record<string, ServiceEndpoint>>;
  /** Reads a token file (its text); the token is never printed. */
  readTokenFile: (path: string) => string;
  /** Per-request timeout. @defaultValue 10000 */
  timeoutMs?: number;
  /** @defaultValue the global fetch */
  fetch?: typeof fetch;
}

/** A successful answer with its status (200 and 201 can mean different things). */
export interface RouteAnswer<R extends RouteContract> {
  status: number;
  body: RouteOutput<R>;
}

/**
 * The one typed HTTP client: every route of every service goes through {@link ApiClient.send}, as the
 * protocol's route contract of it says (path, query and body checked before sending, the answer after).
 */
export interface ApiClient {
  send<R extends RouteContract>(route: R, input: RouteInput<R>): Promise<RouteAnswer<R>>;
  call<R extends RouteContract>(route: R, input: RouteInput<R>): Promise<RouteOutput<R>>;
  /** The base URL a service is configured at. */
  urlOf(service: string): string;
}

type LooseInput = { params?: unknown; query?: unknown; body?: unknown };

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UsageError(`invalid ${what}: ${summarizeZodIssues(parsed.error)}`);
  return parsed.data;
}

/** The request URL: path parameters substituted (encoded) and the parsed query appended. */
function requestUrl(base: string, route: RouteContract, input: LooseInput): URL {
  const params = route.params
    ? (parseOrThrow(route.params, input.params, 'name') as Record<string, string>)
    : {};
  let path = route.path;
  for (const name of pathParameterNames(route.path))
    path = path.replace(`{${name}}`, encodeURIComponent(String(params[name])));
  const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
  if (route.query) {
    const query = parseOrThrow(route.query, input.query ?? {}, 'filter') as Record<string, unknown>;
    for (const [key, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url;
}

/** Why fetch failed, in an operator's words (Node's fetch hides the reason in `cause.code`). */
function transportReason(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'no answer in time';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'no such host',
    EAI_AGAIN: 'name resolution failed',
    ECONNRESET: 'connection reset',
    EHOSTUNREACH: 'host unreachable',
  };
  return (
    (code && reasons[code]) ?? cause?.message ?? (error instanceof Error ? error.message : String(error))
  );
}

/** The server closed a pooled connection (its keep-alive timeout) just as the request went out on it. */
function isClosedConnection(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}

async function readJson(response: Response, service: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${service} answered ${response.status} with a body that is not JSON`, {
      cause: error,
    });
  }
}

/** Creates the client over the configured endpoints. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const doFetch = options.fetch ?? fetch;
  const endpointOf = (service: string): ServiceEndpoint => {
    const endpoint = options.endpoints[service];
    if (!endpoint) throw new UsageError(`no endpoint configured for ${service}`);
    return endpoint;
  };

  async function send<R extends RouteContract>(route: R, input: RouteInput<R>): Promise<RouteAnswer<R>> {
    const loose = input as LooseInput;
    const endpoint = endpointOf(route.service);
    const url = requestUrl(endpoint.url, route, loose);
    const headers: Record<string, string> = { accept: 'application/json' };
    // Token files end with a newline more often than not; a header value cannot carry it.
    if (endpoint.tokenFile)
      headers['authorization'] =
        `Bearer ${options.readTokenFile(endpoint.tokenFile).replace(/[\r\n]+$/, '')}`;
    let body: string | undefined;
    if (route.body) {
      parseOrThrow(route.body, loose.body, 'request body');
      headers['content-type'] = 'application/json';
      // The input form is sent: the service applies its own defaults.
      body = JSON.stringify(loose.body);
    }
    const request = () =>
      doFetch(url, {
        method: route.method,
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    let response: Response;
    try {
      response = await request().catch((error: unknown) => {
        // A kept-alive connection the service closed as it was reused: a GET is safe to send again.
        if (route.method === 'GET' && isClosedConnection(error)) return request();
        throw error;
      });
    } catch (error) {
      throw new UnreachableError(route.service, endpoint.url, transportReason(error), error);
    }
    const json = await readJson(response, route.service);
    if (!route.success.includes(response.status)) {
      const error = ErrorBodySchema.safeParse(json);
      if (error.success)
        throw new ServiceError(
          route.service,
          response.status,
          error.data,
          accessHint(route.service, response.status, endpoint),
        );
      throw new CliError(`${route.service} answered ${route.method} ${route.path} with ${response.status}`);
    }
    if (route.response === undefined) return { status: response.status, body: undefined as RouteOutput<R> };
    const parsed = route.response.safeParse(json);
    if (!parsed.success)
      throw new CliError(
        `${route.service} answered ${route.method} ${route.path} with a body sandboxctl does not understand ` +
          `(${summarizeZodIssues(parsed.error, 3)}); are sandboxctl and the service the same version?`,
      );
    return { status: response.status, body: parsed.data as RouteOutput<R> };
  }

  return {
    send,
    call: async (route, input) => (await send(route, input)).body,
    urlOf: (service) => endpointOf(service).url,
  };
}
