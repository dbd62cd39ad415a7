import type { IncomingMessage, ServerResponse } from 'node:http';
import { REDACTED, isSecretKey, redactUrl } from './redact';

/** A request as it appears in a log line. */
export interface SerializedRequest {
  id?: unknown;
  method?: string;
  url?: string;
  headers: Record<string, unknown>;
  remoteAddress?: string;
}

/**
 * Serializes a raw request: credential headers (`authorization`, `livepeer-session-token`,
 * `livepeer-payment`, cookies, ...) and secret-named query parameters are redacted.
 */
export function serializeRequest(req: unknown): unknown {
  if (!isIncomingMessage(req)) return req;
  const express = req as IncomingMessage & { id?: unknown; originalUrl?: string };
  const url = express.originalUrl ?? express.url;
  return {
    id: express.id,
    method: express.method,
    url: url === undefined ? undefined : redactUrl(url),
    headers: redactHeaders(express.headers),
    remoteAddress: express.socket?.remoteAddress,
  } satisfies SerializedRequest;
}

/** Serializes a raw response to its status code (response headers may set cookies). */
export function serializeResponse(res: unknown): unknown {
  if (!isServerResponse(res)) return res;
  return { statusCode: res.statusCode };
}

/** A copy of a header map with every credential-bearing header redacted. */
function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isSecretKey(name) ? REDACTED : value;
  return out;
}

function isIncomingMessage(value: unknown): value is IncomingMessage {
  return typeof value === 'object' && value !== null && 'headers' in value && 'method' in value;
}

function isServerResponse(value: unknown): value is ServerResponse {
  return typeof value === 'object' && value !== null && 'statusCode' in value && 'getHeaders' in value;
}
