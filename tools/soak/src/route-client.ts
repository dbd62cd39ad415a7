import {
  pathParameterNames,
  summarizeZodIssues,
  type RouteContract,
  type RouteInput,
  type RouteOutput,
} from '@sandbox/protocol';

/** A management API answered outside its contract (status or body). */
export class RouteCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RouteCallError';
  }
}

type LooseInput = { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };

/**
 * Calls one route of a management API as its protocol contract says: path parameters substituted,
 * the body parsed by the route's schema before sending, the answer parsed after. The token is sent,
 * never shown.
 */
export async function callRoute<R extends RouteContract>(
  baseUrl: string,
  token: string,
  route: R,
  input: RouteInput<R>,
  timeoutMs = 5_000,
): Promise<RouteOutput<R>> {
  const loose = input as LooseInput;
  let path = route.path;
  for (const name of pathParameterNames(route.path))
    path = path.replace(`{${name}}`, encodeURIComponent(String(loose.params?.[name])));
  const url = new URL(path, baseUrl);
  for (const [key, value] of Object.entries(loose.query ?? {}))
    if (value !== undefined) url.searchParams.set(key, String(value));
  // Checked against the schema, sent as given: a schema may transform (durations become milliseconds).
  if (route.body !== undefined) {
    const checked = route.body.safeParse(loose.body);
    if (!checked.success)
      throw new RouteCallError(`${route.operationId}: invalid body: ${summarizeZodIssues(checked.error)}`);
  }
  const body = route.body === undefined ? undefined : JSON.stringify(loose.body);
  const response = await fetch(url, {
    method: route.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  if (!route.success.includes(response.status))
    throw new RouteCallError(
      `${route.operationId} answered ${response.status}: ${text.slice(0, 300)}`,
      response.status,
    );
  if (route.response === undefined) return undefined as RouteOutput<R>;
  const parsed = route.response.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new RouteCallError(
      `${route.operationId} answered off its schema: ${summarizeZodIssues(parsed.error)}`,
    );
  return parsed.data as RouteOutput<R>;
}
