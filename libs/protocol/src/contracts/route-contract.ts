import type { z } from 'zod';
import type { ErrorCode } from '../errors/error-codes';

/** HTTP methods the services' APIs use. */
export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/**
 * Who may call a route. `read`: the read or the admin token of the management API; `admin`: the admin
 * token only; `intake`: Node's own credential (the service checks it, not the management policy);
 * `open`: anyone (probes).
 */
export type RouteRole = 'read' | 'admin' | 'intake' | 'open';

/** The services that serve an HTTP API. */
export type ServiceName =
  'instance-manager' | 'adapter' | 'drain-controller' | 'redemption-handoff' | 'verifier' | 'dashboard';

/**
 * One route of a service's HTTP API: the single description its router validates with, its OpenAPI
 * document is generated from and sandboxctl calls through.
 */
export interface RouteContract {
  /** The service that serves it. */
  readonly service: ServiceName;
  /** The OpenAPI operationId. */
  readonly operationId: string;
  /** One line for the OpenAPI document. */
  readonly summary: string;
  readonly method: HttpMethod;
  /** An OpenAPI path template, such as `/v1/apps/{app}`. */
  readonly path: string;
  /** Path parameters, one key per `{name}` of the template. */
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  /** Status codes that mean success; each answers with `response` (none: an empty body). */
  readonly success: readonly number[];
  readonly response?: z.ZodType;
  /** The media type of a successful answer. @defaultValue 'application/json' */
  readonly produces?: 'application/json' | 'text/html';
  /**
   * Error codes this route answers by itself, beyond those every route may answer (`invalid_request`
   * when it takes input; `unauthenticated`, `forbidden`, `misdirected_request` by its role; `internal`).
   * Each is answered with the status of {@link HTTP_STATUS_OF_ERROR_CODE}.
   */
  readonly errors: readonly ErrorCode[];
  readonly role: RouteRole;
}

/** Keeps the literal types of a route contract (so inputs and outputs are typed per route). */
export function defineRoute<const T extends RouteContract>(route: T): T {
  return route;
}

/** A service's whole HTTP API: what its OpenAPI document is generated from. */
export interface ApiContract {
  readonly service: ServiceName;
  readonly title: string;
  readonly description: string;
  /** The API's version. @defaultValue '1.0.0' */
  readonly version?: string;
  /**
   * Names of the schemas documented as components (request bodies in their input form, responses as
   * sent); a schema not named here is written inline.
   */
  readonly schemas: Readonly<Record<string, z.ZodType>>;
  readonly routes: Readonly<Record<string, RouteContract>>;
  /** The management API also takes the token as a basic-auth password (browsers). */
  readonly basicAuth?: boolean;
}

/** Keeps the literal types of an API contract. */
export function defineApi<const T extends ApiContract>(api: T): T {
  return api;
}

type Part<S, K extends string, IO extends 'input' | 'output'> = S extends z.ZodType
  ? { readonly [key in K]: IO extends 'input' ? z.input<S> : z.output<S> }
  : unknown;

/** What a client sends to `route`: its path parameters, query and body, each typed by its schema. */
export type RouteInput<R extends RouteContract> = Part<R['params'], 'params', 'input'> &
  Part<R['query'], 'query', 'input'> &
  Part<R['body'], 'body', 'input'>;

/** What a router hands its handler for `route`: every part parsed by its schema. */
export type RouteRequest<R extends RouteContract> = Part<R['params'], 'params', 'output'> &
  Part<R['query'], 'query', 'output'> &
  Part<R['body'], 'body', 'output'>;

/** What a successful call of `route` returns. */
export type RouteOutput<R extends RouteContract> = R['response'] extends z.ZodType
  ? z.output<R['response']>
  : undefined;

/** The path template's `{name}` parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

/** The path template as an express route (`/v1/apps/{app}` → `/v1/apps/:app`). */
export function expressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * The role the management access policy gives a route of this method: GET and HEAD need a read
 * token, anything else the admin token.
 */
export function roleOfMethod(method: HttpMethod): 'read' | 'admin' {
  return method === 'GET' ? 'read' : 'admin';
}
