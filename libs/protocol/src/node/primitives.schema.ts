import { z } from 'zod';

/** Node's route-safe identifier (runner and session ids): ASCII letters, digits, `-`, `_`, 1 to 128 bytes. */
export const ROUTE_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/u;

/** True when `id` is a route-safe identifier ({@link ROUTE_ID_PATTERN}). */
export function isRouteId(id: string): boolean {
  return ROUTE_ID_PATTERN.test(id);
}

/** A runner or session id as Node accepts it in paths. */
export const RouteIdSchema = z.string().regex(ROUTE_ID_PATTERN, {
  error: "must contain only ASCII letters, digits, '-' or '_' and be 1 to 128 bytes",
});

/**
 * True for what Node's `destination.ParseURL` accepts: an absolute `http`/`https` URL with a host.
 * Userinfo, a query and a path are allowed (the proxy keeps the path and query of `runner_url`).
 */
export function isHttpUrl(text: string): boolean {
  // Go's url.Parse keeps an empty host for `http:host` or `http:///path`, which WHATWG parsing would
  // repair, so the authority is checked as Go reads it.
  const authority = /^https?:\/\/([^/?#]*)/iu.exec(text)?.[1];
  if (authority === undefined || !URL.canParse(text)) return false;
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const host = hostPort.startsWith('[')
    ? hostPort.slice(0, hostPort.indexOf(']') + 1)
    : hostPort.split(':')[0];
  return host !== undefined && host !== '' && host !== '[]';
}

/** An absolute http(s) URL with a host. */
export const HttpUrlSchema = z.string().refine(isHttpUrl, { error: 'must be an absolute HTTP or HTTPS URL' });

/** Go's `json.Number` grammar, which Node also accepts inside a JSON string. */
export const GO_JSON_NUMBER_PATTERN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/u;

/** An Ethereum address, `0x` and 40 hex characters (any case). */
export const EthAddressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/u, { error: 'must be 0x followed by 40 hex characters' });

/** Standard base64 (with padding), as Node's payment headers and `payment_params` use. */
export const Base64Schema = z
  .string()
  .min(1)
  .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/u, {
    error: 'must be standard base64',
  });

/** A UTC RFC 3339 timestamp with optional fraction, as Go's `time.RFC3339Nano` writes it. */
export const Rfc3339NanoSchema = z.iso.datetime({ offset: false });
