import { timingSafeEqual } from 'node:crypto';
import { idGenerator, type IdKind } from './id-scheme';
import type { Clock } from '@sandbox/service-kit';
import type { Rational } from '../go/rational';
import type { GpuFields, PriceQuoteFields } from './heartbeat-fields';
import type { AdvertisedPriceValue } from './price';

/** Registry events; `reserved`/`released` reach the O2R channel, the others close a runner's channels. */
export type RegistryEvent = 'reserved' | 'released' | 'unregistered' | 'expired';

export type RegistryEventListener = (runnerId: string, event: RegistryEvent, sessionId: string) => void;

/** What a runner registered, after Node's normalisation. */
export interface RunnerProfile {
  runnerUrl: string;
  app: string;
  capacity: number;
  mode: string;
  status: string;
  proxy: boolean;
  label: string;
  version: string;
  metadata: string;
  gpu: GpuFields | undefined;
}

/** A generated proxy of a session; `runner` marks the one standing for the runner's own URL. */
export interface SessionProxy {
  readonly target: URL;
  readonly runner: boolean;
}

export interface Session {
  readonly id: string;
  /** Secret: authorizes runner callbacks. */
  readonly token: string;
  /** A paid reservation not yet activated by payment (no traffic, no `reserved` event yet). */
  pending: boolean;
  readonly created: number;
  readonly price: AdvertisedPriceValue;
  /** Aborted on release: cuts every in-flight request and socket of the session. */
  readonly abort: AbortController;
  readonly proxies: Map<string, SessionProxy>;
}

export interface Runner {
  readonly id: string;
  /** Secret: the per-runner heartbeat credential. */
  readonly credential: string;
  last: number;
  profile: RunnerProfile;
  usdQuote: PriceQuoteFields;
  price: AdvertisedPriceValue;
  /** In reservation order. */
  readonly sessions: Map<string, Session>;
}

export interface RegistryConfig {
  /** Public base URL, no trailing slash. */
  readonly serviceUrl: string;
  /** Runner-facing base URL, no trailing slash. */
  readonly runnerServiceUrl: string;
  /** Exact bytes of the bootstrap secret file. */
  readonly bootstrapSecret: Buffer;
  readonly intervalMs: number;
  readonly ttlMs: number;
  /** Paid mode when set. */
  readonly weiPerUsd: Rational | undefined;
}

/** Node's `equalSecret`: both non-empty and byte-equal, compared in constant time. */
export function equalSecret(a: Buffer | string, b: Buffer | string): boolean {
  const left = typeof a === 'string' ? Buffer.from(a, 'latin1') : a;
  const right = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
  return left.length > 0 && left.length === right.length && timingSafeEqual(left, right);
}

/** The runner table shared by the runner-side and client-side halves of the registry. */
export class RegistryState {
  readonly runners = new Map<string, Runner>();
  closed = false;
  onEvent: RegistryEventListener = () => undefined;

  constructor(
    readonly config: RegistryConfig,
    readonly clock: Clock,
    readonly newId: (kind: IdKind) => string = idGenerator('hex'),
  ) {}

  /** Registered, not stale, `status` exactly `ready`, and Node not closing. */
  usable(runner: Runner): boolean {
    return (
      !this.closed && this.clock.now() - runner.last <= this.config.ttlMs && runner.profile.status === 'ready'
    );
  }

  totalSessions(): number {
    let total = 0;
    for (const runner of this.runners.values()) total += runner.sessions.size;
    return total;
  }

  /** The single teardown path: cut traffic, free capacity, tell the runner. */
  release(runnerId: string, sessionId: string): void {
    const session = this.runners.get(runnerId)?.sessions.get(sessionId);
    if (!session) return;
    session.abort.abort();
    this.runners.get(runnerId)?.sessions.delete(sessionId);
    this.onEvent(runnerId, 'released', sessionId);
  }

  releaseAll(runner: Runner): void {
    for (const sessionId of [...runner.sessions.keys()]) this.release(runner.id, sessionId);
  }

  appUrl(runnerId: string, mode: string, sessionId: string): string {
    const base = `${this.config.serviceUrl}/apps/${encodeURIComponent(runnerId)}`;
    if (mode === 'single-shot') return `${base}/app`;
    if (sessionId === '') return `${base}/session`;
    return `${base}/session/${encodeURIComponent(sessionId)}/app`;
  }

  controlUrl(runnerId: string, sessionId: string): string {
    return `${this.config.serviceUrl}/apps/${encodeURIComponent(runnerId)}/session/${encodeURIComponent(sessionId)}`;
  }

  /** `Livepeer-Session-Control`: the runner-facing callback base of a session. */
  sessionControlUrl(runnerId: string, sessionId: string): string {
    return `${this.config.runnerServiceUrl}/runner/${encodeURIComponent(runnerId)}/session/${encodeURIComponent(sessionId)}`;
  }

  proxyUrl(proxyId: string): string {
    return `${this.config.serviceUrl}/run/${proxyId}`;
  }

  discoveryUrl(runner: Runner): string {
    if (runner.profile.proxy && runner.profile.mode === 'single-shot') return this.proxyUrl(runner.id);
    return this.appUrl(runner.id, runner.profile.mode, '');
  }
}
