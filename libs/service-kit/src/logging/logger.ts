import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';
import type { LogLevel } from '../config/env-fields';
import { serializeError } from './error-serializer';
import { serializeRequest, serializeResponse } from './http-serializers';
import { REDACTED, redactDeep, redactLine, redactUrlCredentials } from './redact';
import { createSecretScrubber } from './secret-scrubber';
import type { SecretScrubber } from './secret-scrubber';

/** The logger type every service passes down. */
export type ServiceLogger = Logger;

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Service name, a field of every line. */
  svc: string;
  /** @defaultValue `info` */
  level?: LogLevel;
  /** Where lines go. @defaultValue stdout, written synchronously so nothing is lost on exit */
  destination?: DestinationStream;
  /** Secret values to remove from every line. @defaultValue a new, empty scrubber */
  secrets?: SecretScrubber;
  /** Stacks are logged only when true (development). @defaultValue false */
  includeStacks?: boolean;
}

/** Header paths fast-redact censors before a line is built (the deep passes below catch the rest). */
const REDACT_PATHS: readonly string[] = Object.freeze([
  'req.headers.authorization',
  'req.headers["livepeer-session-token"]',
  'req.headers["livepeer-payment"]',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'headers.authorization',
  'headers["livepeer-session-token"]',
  'headers["livepeer-payment"]',
]);

/**
 * Creates THE root logger of a service: JSON lines, level as a label, `svc` on every line, child
 * loggers carry their fields. Secrets are kept out in four layers:
 * 1. serializers for `err`, `req` and `res` that allow-list fields and redact credential headers;
 * 2. fast-redact paths for the request headers pino-http logs on every line;
 * 3. a deep pass over every logged object that redacts each field named like a secret (protocol
 *    `SECRET_FIELD_NAMES`, case-insensitive) at any depth and serializes nested errors;
 * 4. on the finished line: a re-check for any secret-named key still holding a value (child
 *    bindings, which pino does not pass through formatters; class instances), the credentials of
 *    any URL (`redis://:password@host`), and the {@link SecretScrubber}, which replaces every
 *    registered secret value wherever it appears.
 */
export function createLogger(options: CreateLoggerOptions): ServiceLogger {
  const secrets = options.secrets ?? createSecretScrubber();
  const errorOptions = { includeStack: options.includeStacks ?? false, scrub: secrets.scrub };
  const onError = (error: Error): unknown => serializeError(error, errorOptions);
  const deep = (object: Record<string, unknown>): Record<string, unknown> =>
    redactDeep(object, onError) as Record<string, unknown>;
  return pino(
    {
      level: options.level ?? 'info',
      base: { svc: options.svc },
      messageKey: 'msg',
      errorKey: 'err',
      serializers: { err: onError, error: onError, req: serializeRequest, res: serializeResponse },
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => deep(object),
      },
      hooks: { streamWrite: (line) => secrets.scrub(redactUrlCredentials(redactLine(line))) },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
