import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { Request, RequestHandler } from 'express';
import { readSecretFileText } from '../config/secret-file';
import { ForbiddenError, MisdirectedRequestError, UnauthorizedError } from '../errors/app-error';
import type { SecretScrubber } from '../logging/secret-scrubber';
import { bearerToken } from './bearer-auth';

/** Roles of a management API: `read` may call GET and HEAD; `admin` may call everything. */
export type AccessRole = 'read' | 'admin';

/** The two tokens of a service's management API (texts as they travel in a header). Secret. */
export interface AccessTokens {
  readonly admin: string;
  readonly read: string;
}

/** Options of {@link accessPolicy}. */
export interface AccessPolicyOptions {
  tokens: AccessTokens;
  /** The service's own name: `<name>` and `<name>.<namespace>.svc[.cluster.local]` are accepted hosts. */
  serviceName: string;
  /** More host names the API answers to (an ingress name). @defaultValue none */
  hosts?: readonly string[];
  /**
   * Also accept HTTP basic auth, the token as the password (any user name), and ask browsers for it
   * with `WWW-Authenticate` on a 401. @defaultValue false
   */
  basicAuth?: boolean;
  /** Requests the service authenticates itself (another credential); they skip this policy. */
  exempt?: (req: Request) => boolean;
}

const READ_METHODS = new Set(['GET', 'HEAD']);
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.']);

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The role a credential stands for, compared in constant time (over digests, so neither the content
 * nor the length of a token leaks), against both tokens whatever matched first.
 */
export function roleOfCredential(
  credential: string | undefined,
  tokens: AccessTokens,
): AccessRole | undefined {
  if (credential === undefined || credential === '') return undefined;
  const presented = digest(credential);
  const isAdmin = timingSafeEqual(presented, digest(tokens.admin));
  const isRead = timingSafeEqual(presented, digest(tokens.read));
  return isAdmin ? 'admin' : isRead ? 'read' : undefined;
}

/** The credential of an `Authorization` header: a bearer token, or (when allowed) a basic password. */
function credentialOf(header: string | undefined, basicAuth: boolean): string | undefined {
  if (header === undefined) return undefined;
  if (header.startsWith('Bearer ')) return header.slice('Bearer '.length);
  if (!basicAuth || !header.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** The host name of a `Host` header, lower case, without the port (`[::1]:80` → `::1`). */
export function hostNameOf(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const lower = header.toLowerCase();
  if (!lower.startsWith('[')) return lower.replace(/:\d*$/, '');
  const end = lower.indexOf(']');
  return end < 0 ? undefined : lower.slice(1, end);
}

/**
 * True for the names a browser cannot be tricked into sending to us by DNS rebinding: IP literals
 * (a page whose origin is an address is that address), loopback names, the service's name (bare or as
 * a cluster Service, under the non-public `.svc` suffix) and the configured names.
 */
export function isAllowedHost(
  name: string | undefined,
  serviceName: string,
  hosts: readonly string[],
): boolean {
  if (name === undefined) return false;
  if (isIP(name) !== 0 || LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) return true;
  const own = serviceName.toLowerCase();
  if (name === own || hosts.some((host) => host.toLowerCase() === name)) return true;
  const labels = name.split('.');
  const clusterSuffix = labels.slice(2).join('.');
  return (
    labels[0] === own &&
    labels.length >= 3 &&
    (clusterSuffix === 'svc' || clusterSuffix === 'svc.cluster.local')
  );
}

/**
 * Express middleware guarding a management API (mount it after the probes): a `Host` that is not the
 * service's own is refused with 421 `misdirected_request`; then GET and HEAD need the read or the
 * admin token, every other method the admin token (`Authorization: Bearer <token>`). No credential or
 * an unknown one: 401 `unauthenticated`; the read token on a write: 403 `forbidden`. The role is left
 * in `res.locals.accessRole`. Credentials are never logged or echoed.
 */
export function accessPolicy(options: AccessPolicyOptions): RequestHandler {
  const { tokens } = options;
  if (tokens.admin === '' || tokens.read === '') throw new Error('access tokens must not be empty');
  if (tokens.admin === tokens.read) throw new Error('the admin and read tokens must differ');
  const hosts = options.hosts ?? [];
  const basicAuth = options.basicAuth ?? false;
  return (req, res, next) => {
    if (options.exempt?.(req)) return next();
    if (!isAllowedHost(hostNameOf(req.headers.host), options.serviceName, hosts))
      throw new MisdirectedRequestError();
    const role = roleOfCredential(credentialOf(req.headers.authorization, basicAuth), tokens);
    if (role === undefined) {
      if (basicAuth)
        res.setHeader('WWW-Authenticate', `Basic realm="${options.serviceName}", charset="UTF-8"`);
      throw new UnauthorizedError('a read or admin token is required (Authorization: Bearer <token>)');
    }
    if (role !== 'admin' && !READ_METHODS.has(req.method))
      throw new ForbiddenError('this call changes state and needs the admin token');
    res.locals['accessRole'] = role;
    next();
  };
}

/**
 * Reads the two token files (a trailing line break is not part of a token) and registers both values
 * with the log scrubber. Throws `SecretFileError` (naming the path, never the contents) when unusable.
 */
export function readAccessTokens(
  files: { adminTokenFile: string; readTokenFile: string },
  scrubber: SecretScrubber,
): AccessTokens {
  const read = (path: string) => bearerToken(readSecretFileText(path, { scrubber }));
  return { admin: read(files.adminTokenFile), read: read(files.readTokenFile) };
}
