import { ID_FORMATS, type IdFormat } from './registry/id-scheme';
import { parseArgs } from 'node:util';
import { isHttpUrl, parseGoDurationMs } from '@sandbox/protocol';
import { MAX_UINT256 } from '@sandbox/tickets';
import { parseRational, sign } from './go/rational';
import type { Rational } from './go/rational';
import type { ListenAddress } from './node-sim';
import { parseGrant } from './proxy/destination-policy';

export { USAGE } from './cli-usage';

/** A bad command line: reported on stderr with exit status 2. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/** The command line, validated; files are read later by {@link loadSecrets}. */
export interface CliFlags {
  readonly listen: ListenAddress;
  readonly metricsListen: ListenAddress;
  readonly serviceUrl: string | undefined;
  readonly runnerServiceUrl: string | undefined;
  readonly bootstrapSecretFile: string;
  readonly generateBootstrapSecret: boolean;
  readonly heartbeatIntervalMs: number;
  readonly heartbeatTtlMs: number;
  readonly runnerGrants: string[];
  readonly sessionProxyGrants: string[];
  readonly paid:
    | {
        weiPerUsd: Rational;
        faceValue: bigint;
        winProb: bigint;
        recipient: string | undefined;
        payerKeyFile: string | undefined;
      }
    | undefined;
  readonly handoff: { url: string; secretFile: string } | undefined;
  readonly dataDir: string | undefined;
  readonly logLevel: string;
  /** How ids, credentials and tokens are drawn (`base32`: Node's newer releases). */
  readonly idFormat: IdFormat;
}

const OPTIONS = {
  listen: { type: 'string', default: '127.0.0.1:8935' },
  'metrics-listen': { type: 'string', default: '127.0.0.1:8936' },
  'service-url': { type: 'string' },
  'runner-service-url': { type: 'string' },
  'bootstrap-secret-file': { type: 'string' },
  'generate-bootstrap-secret': { type: 'boolean', default: false },
  'heartbeat-interval': { type: 'string', default: '5s' },
  'heartbeat-ttl': { type: 'string', default: '30s' },
  'runner-grant': { type: 'string', multiple: true, default: [] as string[] },
  'runner-grants': { type: 'string', multiple: true, default: [] as string[] },
  'session-proxy-grant': { type: 'string', multiple: true, default: [] as string[] },
  'session-proxy-grants': { type: 'string', multiple: true, default: [] as string[] },
  paid: { type: 'boolean', default: false },
  'wei-per-usd': { type: 'string' },
  'ticket-face-value': { type: 'string', default: '1000000000000000' },
  'ticket-win-prob': { type: 'string', default: '0.5' },
  recipient: { type: 'string' },
  'payer-key-file': { type: 'string' },
  'handoff-url': { type: 'string' },
  'handoff-secret-file': { type: 'string' },
  'data-dir': { type: 'string' },
  'log-level': { type: 'string', default: 'info' },
  'id-format': { type: 'string', default: 'hex' },
  help: { type: 'boolean', default: false },
} as const;

export function parseListen(flag: string, value: string): ListenAddress {
  const match = /^(\[[^\]]+\]|[^:]*):(\d{1,5})$/u.exec(value);
  const port = Number(match?.[2]);
  if (!match || port > 65_535)
    throw new CliError(`--${flag} must be host:port, got ${JSON.stringify(value)}`);
  return { host: (match[1] ?? '').replace(/^\[|\]$/gu, '') || '0.0.0.0', port };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/u.test(host);
}

function baseUrl(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const valid =
    isHttpUrl(value) &&
    (() => {
      const url = new URL(value);
      return (
        url.username === '' &&
        url.password === '' &&
        url.search === '' &&
        url.hash === '' &&
        !value.includes('#')
      );
    })();
  if (!valid)
    throw new CliError(`--${flag} must be an absolute http(s) URL without credentials, query or fragment`);
  return value;
}

function duration(flag: string, value: string): number {
  const ms = parseGoDurationMs(value);
  if (ms === undefined || ms <= 0)
    throw new CliError(`--${flag} must be a positive Go duration such as 5s, got ${JSON.stringify(value)}`);
  return ms;
}

function grants(purpose: string, flag: string, values: readonly string[]): string[] {
  const list = values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
  for (const grant of list) {
    try {
      parseGrant(purpose, grant);
    } catch {
      throw new CliError(`--${flag} must be exact host:port values, got ${JSON.stringify(grant)}`);
    }
  }
  return list;
}

/** A win probability as a fraction of 1 (`0.25`) or as Node's integer out of 2^256 - 1. */
export function parseWinProb(value: string): bigint {
  const fraction = /[.eE]/u.test(value) ? parseRational(value) : undefined;
  if (fraction) {
    if (sign(fraction) <= 0 || fraction.num > fraction.den)
      throw new CliError('--ticket-win-prob must be in (0, 1]');
    return (MAX_UINT256 * fraction.num) / fraction.den;
  }
  if (!/^\d+$/u.test(value) || BigInt(value) <= 0n || BigInt(value) > MAX_UINT256) {
    throw new CliError('--ticket-win-prob must be a fraction in (0, 1] or an integer in [1, 2^256-1]');
  }
  return BigInt(value);
}

function paidSettings(values: Record<string, string | boolean | string[] | undefined>): CliFlags['paid'] {
  if (values.paid !== true) {
    if (values['wei-per-usd'] !== undefined) throw new CliError('--wei-per-usd needs --paid');
    return undefined;
  }
  const rate = parseRational(String(values['wei-per-usd'] ?? ''));
  if (!rate || sign(rate) <= 0) throw new CliError('--paid needs --wei-per-usd with a positive number');
  const faceValue = String(values['ticket-face-value']);
  if (!/^\d+$/u.test(faceValue) || BigInt(faceValue) <= 0n)
    throw new CliError('--ticket-face-value must be a positive integer (wei)');
  const recipient = values.recipient === undefined ? undefined : String(values.recipient);
  if (recipient !== undefined && !/^0x[0-9a-fA-F]{40}$/u.test(recipient))
    throw new CliError('--recipient must be a 0x address');
  const payerKeyFile = values['payer-key-file'] === undefined ? undefined : String(values['payer-key-file']);
  const winProb = parseWinProb(String(values['ticket-win-prob']));
  return { weiPerUsd: rate, faceValue: BigInt(faceValue), winProb, recipient, payerKeyFile };
}

function idFormat(value: string): IdFormat {
  const found = ID_FORMATS.find((format) => format === value);
  if (found === undefined) throw new CliError(`--id-format must be one of ${ID_FORMATS.join(', ')}`);
  return found;
}

/** Parses and validates the command line (Node's flag names where Node has them). */
export function parseCli(args: readonly string[]): CliFlags | 'help' {
  let values;
  try {
    ({ values } = parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  if (values.help) return 'help';
  const metricsListen = parseListen('metrics-listen', values['metrics-listen']);
  if (!isLoopback(metricsListen.host)) throw new CliError('--metrics-listen must be a loopback address');
  if (values['bootstrap-secret-file'] === undefined)
    throw new CliError('--bootstrap-secret-file is required');
  const heartbeatIntervalMs = duration('heartbeat-interval', values['heartbeat-interval']);
  const heartbeatTtlMs = duration('heartbeat-ttl', values['heartbeat-ttl']);
  if (heartbeatTtlMs <= heartbeatIntervalMs)
    throw new CliError('--heartbeat-ttl must be greater than --heartbeat-interval');
  const handoffUrl = baseUrl('handoff-url', values['handoff-url']);
  if ((handoffUrl === undefined) !== (values['handoff-secret-file'] === undefined)) {
    throw new CliError('--handoff-url and --handoff-secret-file go together');
  }
  if (handoffUrl !== undefined && values['data-dir'] === undefined)
    throw new CliError('--handoff-url needs --data-dir');
  const paid = paidSettings(values);
  if (handoffUrl !== undefined && !paid) throw new CliError('--handoff-url needs --paid');
  return {
    listen: parseListen('listen', values.listen),
    metricsListen,
    serviceUrl: baseUrl('service-url', values['service-url']),
    runnerServiceUrl: baseUrl('runner-service-url', values['runner-service-url']),
    bootstrapSecretFile: values['bootstrap-secret-file'],
    generateBootstrapSecret: values['generate-bootstrap-secret'],
    heartbeatIntervalMs,
    heartbeatTtlMs,
    runnerGrants: grants('runner', 'runner-grant', [...values['runner-grant'], ...values['runner-grants']]),
    sessionProxyGrants: grants('session-proxy', 'session-proxy-grant', [
      ...values['session-proxy-grant'],
      ...values['session-proxy-grants'],
    ]),
    paid,
    handoff:
      handoffUrl === undefined
        ? undefined
        : { url: handoffUrl, secretFile: String(values['handoff-secret-file']) },
    dataDir: values['data-dir'],
    logLevel: values['log-level'],
    idFormat: idFormat(values['id-format']),
  };
}
