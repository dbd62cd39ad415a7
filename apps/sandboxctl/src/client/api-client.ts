import { ErrorBodySchema, summarizeZodIssues } from '@sandbox/protocol';
import type { z } from 'zod';
import { CliError, ServiceError, UnreachableError, UsageError } from '../cli/errors';
import { pathParameterNames, type RouteDefinition, type RouteInput, type RouteOutput } from './route';

/** Where one service answers, and the file holding the bearer token to send it (if any). */
export interface ServiceEndpoint {
  url: string;
  tokenFile?: string;
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
export interface RouteAnswer<R extends RouteDefinition> {
  status: number;
  body: RouteOutput<R>;
}

/** The one typed HTTP client: every route of every service goes through {@link ApiClient.send}. */
export interface ApiClient {
  send<R extends RouteDefinition>(route: R, input: RouteInput<R>): Promise<RouteAnswer<R>>;
  call<R extends RouteDefinition>(route: R, input: RouteInput<R>): Promise<RouteOutput<R>>;
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
function requestUrl(base: string, route: RouteDefinition, input: LooseInput): URL {
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

  async function send<R extends RouteDefinition>(route: R, input: RouteInput<R>): Promise<RouteAnswer<R>> {
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
    let response: Response;
    try {
      response = await doFetch(url, {
        method: route.method,
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw new UnreachableError(route.service, endpoint.url, transportReason(error), error);
    }
    const json = await readJson(response, route.service);
    if (!route.success.includes(response.status)) {
      const error = ErrorBodySchema.safeParse(json);
      if (error.success) throw new ServiceError(route.service, response.status, error.data);
      throw new CliError(`${route.service} answered ${route.method} ${route.path} with ${response.status}`);
    }
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
