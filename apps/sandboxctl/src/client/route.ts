import type { z } from 'zod';

/** HTTP methods the services' APIs use. */
export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/**
 * One operation of a service's HTTP API, described by protocol schemas: what the path, query and body
 * must hold, and what a successful answer is. The client validates both directions with them.
 */
export interface RouteDefinition {
  /** The service that serves it (a key of the configured endpoints). */
  readonly service: string;
  /** The OpenAPI operationId, where the service publishes a document. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** An OpenAPI path template, such as `/v1/apps/{app}`. */
  readonly path: string;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** Status codes that mean success; each answers with `response`. */
  readonly success: readonly number[];
  readonly response: z.ZodType;
}

/** Keeps the literal types of a route definition (so inputs and outputs are typed per route). */
export function defineRoute<const T extends RouteDefinition>(route: T): T {
  return route;
}

type Part<S, K extends string> = S extends z.ZodType ? { readonly [key in K]: z.input<S> } : unknown;

/** What a call of `route` takes: its path parameters, query and body, each typed by its schema. */
export type RouteInput<R extends RouteDefinition> = Part<R['params'], 'params'> &
  Part<R['query'], 'query'> &
  Part<R['body'], 'body'>;

/** What a successful call of `route` returns. */
export type RouteOutput<R extends RouteDefinition> = z.output<R['response']>;

/** The path template's `{name}` parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}
