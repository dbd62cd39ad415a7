import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpStatusOf, type ErrorCode } from '@sandbox/protocol';
import type { z } from 'zod';

const MAX_JSON_BYTES = 4096;

/** A request the responder refuses, with its protocol error code (and that code's HTTP status). */
export class RequestError extends Error {
  override readonly name = 'RequestError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.status = httpStatusOf(code);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, error: RequestError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, { error: { code: error.code, message: error.message } });
}

/** Reads a small JSON body and parses it with the schema; the body itself never reaches an error. */
export async function readJson<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BYTES) throw new RequestError('payload_too_large', 'request body too large');
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RequestError('invalid_request', 'body must be JSON');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join('.') || '(body)').join(', ');
    throw new RequestError('invalid_request', `invalid fields: ${fields}`);
  }
  return parsed.data;
}

/** The session id Node injects into every proxied request of a session. */
export function nodeSessionId(req: IncomingMessage): string {
  const value = req.headers['livepeer-session-id'];
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/u.test(value))
    throw new RequestError('invalid_request', 'the request carries no Livepeer-Session-Id');
  return value;
}
