import type { ServerResponse } from 'node:http';

interface JsonWithRaw {
  rawJSON(text: string): unknown;
}

/** A number written verbatim into JSON (exact wei amounts beyond 2^53, Go `json.Number` text). */
export function rawNumber(text: string): unknown {
  return (JSON as unknown as JsonWithRaw).rawJSON(text);
}

/** JSON as Go's `json.Encoder` writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped, newline-terminated. */
export function goJson(value: unknown): string {
  const text = JSON.stringify(value)
    .replace(/</gu, '\\u003c')
    .replace(/>/gu, '\\u003e')
    .replace(/&/gu, '\\u0026')
    .replace(/\u2028/gu, '\\u2028')
    .replace(/\u2029/gu, '\\u2029');
  return `${text}\n`;
}

/** Node's `writeJSON`. */
export function writeJson(res: ServerResponse, status: number, value: unknown): void {
  if (res.headersSent) return void res.destroy();
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(goJson(value));
}

/** Node's `fail`: `{"error":"<message>"}`. */
export function fail(res: ServerResponse, status: number, message: string): void {
  writeJson(res, status, { error: message });
}

/** Go's `http.Error`: plain text plus a newline. */
export function httpError(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.destroy();
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(`${text}\n`);
}
