import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../errors/app-error';

/**
 * The token a secret file stands for, as it travels in a header: its text without trailing line
 * breaks (a header value cannot carry them, and editors add one).
 */
export function bearerToken(secretText: string): string {
  return secretText.replace(/[\r\n]+$/, '');
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * True when an `Authorization` header is `Bearer <token>`. Compared in constant time (over digests, so
 * the length of the token does not leak either).
 */
export function matchesBearer(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false;
  return timingSafeEqual(digest(header.slice('Bearer '.length)), digest(token));
}

/**
 * Express middleware that lets a request through only with `Authorization: Bearer <token>`, else
 * throws {@link UnauthorizedError} (401). The token must not be empty.
 */
export function bearerAuth(token: string): RequestHandler {
  if (token.length === 0) throw new Error('a bearer token must not be empty');
  return (req, _res, next) => {
    if (!matchesBearer(req.headers.authorization, token)) throw new UnauthorizedError();
    next();
  };
}
