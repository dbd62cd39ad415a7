import { isRouteId, NodeErrorMessage, NodeLimits } from '@sandbox/protocol';
import type { AdvertisedPriceValue } from './price';
import { isPaid } from './price';
import type { RegistryState, Runner, Session, SessionProxy } from './registry-state';
import { equalSecret } from './registry-state';
import type { Outcome } from './runner-registry';
import { failure } from './runner-registry';

export interface Reservation {
  sessionId: string;
  appUrl: string;
  controlUrl: string;
}

/** Where a session's traffic goes, and the headers Node injects. */
export interface SessionRoute {
  target: URL;
  runnerId: string;
  sessionId: string;
  token: string;
  signal: AbortSignal;
}

/** The client side of Node's registry: reservations, releases and proxy targets. */
export class SessionRegistry {
  constructor(private readonly state: RegistryState) {}

  private usableRunner(runnerId: string): Runner | undefined {
    const runner = this.state.runners.get(runnerId);
    return runner && this.state.usable(runner) ? runner : undefined;
  }

  modeForRunner(runnerId: string): Outcome<string> {
    const runner = this.usableRunner(runnerId);
    return runner
      ? { ok: true, value: runner.profile.mode }
      : failure(404, NodeErrorMessage.RunnerUnavailable);
  }

  priceForRunner(runnerId: string): Outcome<AdvertisedPriceValue> {
    const runner = this.usableRunner(runnerId);
    return runner ? { ok: true, value: runner.price } : failure(404, NodeErrorMessage.RunnerUnavailable);
  }

  /** Reserves a session; `agreed` marks a paid reservation that stays pending until payment. */
  reserve(runnerId: string, requestedId = '', agreed?: AdvertisedPriceValue): Outcome<Reservation> {
    const runner = this.usableRunner(runnerId);
    if (!runner) return failure(404, NodeErrorMessage.RunnerUnavailable);
    const mode = runner.profile.mode;
    if (mode !== 'persistent' && !(mode === 'single-shot' && requestedId !== '')) {
      return failure(400, 'only persistent runners have sessions');
    }
    if (this.state.totalSessions() >= NodeLimits.maxSessions)
      return failure(503, NodeErrorMessage.SessionCapacityReached);
    if (runner.sessions.size >= runner.profile.capacity)
      return failure(409, NodeErrorMessage.RunnerAtCapacity);
    const sessionId = requestedId === '' ? this.state.newId('session') : requestedId;
    if (!isRouteId(sessionId) || runner.sessions.has(sessionId))
      return failure(409, NodeErrorMessage.SessionExists);
    const session: Session = {
      id: sessionId,
      token: this.state.newId('secret'),
      pending: agreed !== undefined,
      created: this.state.clock.now(),
      price: agreed ?? runner.price,
      abort: new AbortController(),
      proxies: new Map(),
    };
    runner.sessions.set(sessionId, session);
    let appUrl = this.state.appUrl(runnerId, mode, sessionId);
    if (runner.profile.proxy && mode === 'persistent') {
      const proxyId = this.state.newId('proxy');
      session.proxies.set(proxyId, { target: new URL(runner.profile.runnerUrl), runner: true });
      appUrl = this.state.proxyUrl(proxyId);
    }
    if (agreed === undefined) this.state.onEvent(runnerId, 'reserved', sessionId);
    return { ok: true, value: { sessionId, appUrl, controlUrl: this.state.controlUrl(runnerId, sessionId) } };
  }

  /** Client stop (`callback` false, no token checked) or runner stop (token required). */
  release(runnerId: string, sessionId: string, token: string, callback: boolean): Outcome<void> {
    const session = this.state.runners.get(runnerId)?.sessions.get(sessionId);
    if (!session) return failure(404, NodeErrorMessage.SessionNotFound);
    if (callback && !equalSecret(session.token, token))
      return failure(403, NodeErrorMessage.InvalidSessionToken);
    this.state.release(runnerId, sessionId);
    return { ok: true, value: undefined };
  }

  releaseBySession(sessionId: string): void {
    for (const runner of this.state.runners.values()) {
      if (runner.sessions.has(sessionId)) return this.state.release(runner.id, sessionId);
    }
  }

  /** The runner URL and token of an active session of a usable runner. */
  sessionRoute(runnerId: string, sessionId: string): Outcome<SessionRoute> {
    const runner = this.usableRunner(runnerId);
    const session = runner?.sessions.get(sessionId);
    if (!runner || !session || session.pending) return failure(404, NodeErrorMessage.SessionNotFound);
    const target = URL.canParse(runner.profile.runnerUrl) ? new URL(runner.profile.runnerUrl) : undefined;
    if (!target) return failure(502, NodeErrorMessage.RunnerDestinationUnavailable);
    return {
      ok: true,
      value: { target, runnerId, sessionId, token: session.token, signal: session.abort.signal },
    };
  }

  /** Whether a live session exists (for code that must not act on a released one). */
  sessionSignal(runnerId: string, sessionId: string): AbortSignal | undefined {
    return this.state.runners.get(runnerId)?.sessions.get(sessionId)?.abort.signal;
  }

  validSessionToken(runnerId: string, sessionId: string, token: string): boolean {
    const session = this.state.runners.get(runnerId)?.sessions.get(sessionId);
    return session !== undefined && !session.pending && equalSecret(session.token, token);
  }

  /** Adds a session proxy; fails with Node's reason (the HTTP layer answers 403 either way). */
  addProxy(runnerId: string, sessionId: string, token: string, target: URL): Outcome<string> {
    const session = this.state.runners.get(runnerId)?.sessions.get(sessionId);
    if (!session || !equalSecret(session.token, token))
      return failure(403, NodeErrorMessage.InvalidSessionToken);
    if (session.proxies.size >= NodeLimits.maxProxiesPerSession)
      return failure(403, 'too many session proxies');
    const proxyId = this.state.newId('proxy');
    session.proxies.set(proxyId, { target, runner: false });
    return { ok: true, value: proxyId };
  }

  /** A generated proxy of an active session of a usable runner. */
  proxyRoute(proxyId: string): (SessionRoute & { proxy: SessionProxy }) | undefined {
    for (const runner of this.state.runners.values()) {
      if (!this.state.usable(runner)) continue;
      for (const session of runner.sessions.values()) {
        const proxy = session.proxies.get(proxyId);
        if (session.pending || !proxy) continue;
        return {
          proxy,
          target: proxy.target,
          runnerId: runner.id,
          sessionId: session.id,
          token: session.token,
          signal: session.abort.signal,
        };
      }
    }
    return undefined;
  }

  /** A single-shot runner registered with `proxy: true` answers on `/run/<runner id>`. */
  singleShotProxy(runnerId: string): boolean {
    const runner = this.state.runners.get(runnerId);
    return runner !== undefined && runner.profile.proxy && runner.profile.mode === 'single-shot';
  }

  /** Payment arrived: a pending reservation becomes active and the runner hears `reserved`. */
  activate(runnerId: string, sessionId: string): boolean {
    const runner = this.usableRunner(runnerId);
    const session = runner?.sessions.get(sessionId);
    if (!session) return false;
    if (session.pending) {
      session.pending = false;
      this.state.onEvent(runnerId, 'reserved', sessionId);
    }
    return true;
  }

  /** The price agreed for a session (404 while pending or gone). */
  priceForSession(runnerId: string, sessionId: string): Outcome<AdvertisedPriceValue> {
    const session = this.state.runners.get(runnerId)?.sessions.get(sessionId);
    if (!session || session.pending) return failure(404, NodeErrorMessage.SessionNotFound);
    return { ok: true, value: session.price };
  }

  /** Active sessions with a price, which the meter debits every second. */
  paidSessions(): string[] {
    const ids: string[] = [];
    for (const runner of this.state.runners.values()) {
      for (const session of runner.sessions.values())
        if (!session.pending && isPaid(session.price)) ids.push(session.id);
    }
    return ids;
  }
}
