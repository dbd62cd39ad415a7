import { formatGoDurationMs, NodeErrorMessage, NodeLimits } from '@sandbox/protocol';
import type { HeartbeatFields } from './heartbeat-fields';
import { validateHeartbeat } from './heartbeat-rules';
import type { AdvertisedPriceValue } from './price';
import { normalizePrice } from './price';
import type { RegistryState, Runner } from './registry-state';
import { equalSecret } from './registry-state';

/** Outcome of a registry call: a value, or Node's status and error message. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; error: string };

export function failure(status: number, error: string): { ok: false; status: number; error: string } {
  return { ok: false, status, error };
}

/** Heartbeat answer before the HTTP layer adds the O2R channel of a new registration. */
export interface HeartbeatResult {
  runnerId: string;
  orchestrator: string;
  heartbeatInterval: string;
  heartbeatTtl: string;
  /** Only on the initial (bootstrap) registration. Secret. */
  heartbeatSecret: string | undefined;
  sessionIds: string[];
}

/** A discovery runner before JSON encoding (wei amounts stay exact). */
export interface DiscoveryRunnerValue {
  url: string;
  runner: Runner;
  capacityUsed: number;
  capacityAvailable: number;
  price: AdvertisedPriceValue;
}

/** The runner side of Node's registry: heartbeat, unregister, expiry, discovery. */
export class RunnerRegistry {
  constructor(private readonly state: RegistryState) {}

  /** Node's pre-check before the body is read: the bootstrap secret or any live runner credential. */
  acceptsHeartbeatCredential(auth: string): boolean {
    if (this.state.closed) return false;
    if (equalSecret(auth, this.state.config.bootstrapSecret)) return true;
    for (const runner of this.state.runners.values()) if (equalSecret(auth, runner.credential)) return true;
    return false;
  }

  heartbeat(fields: HeartbeatFields, auth: string): Outcome<HeartbeatResult> {
    const invalid = validateHeartbeat(fields);
    if (invalid !== undefined) return failure(400, invalid);
    const quote = { ...fields.priceInfo };
    const normalized = normalizePrice({ ...quote }, this.state.config.weiPerUsd);
    if ('error' in normalized) return failure(400, normalized.error);
    if (this.state.closed) return failure(503, NodeErrorMessage.ShuttingDown);
    let runner = this.state.runners.get(fields.runnerId);
    const initial = runner === undefined;
    if (runner === undefined) {
      const created = this.register(fields.runnerId, auth);
      if (!created.ok) return created;
      runner = created.value;
    } else if (!equalSecret(auth, runner.credential)) {
      return failure(401, NodeErrorMessage.InvalidRunnerCredential);
    }
    runner.profile = {
      runnerUrl: fields.runnerUrl,
      app: fields.app,
      capacity: fields.capacity,
      mode: fields.mode === '' ? 'persistent' : fields.mode,
      status: fields.status === '' ? 'ready' : fields.status,
      proxy: fields.proxy,
      label: fields.label,
      version: fields.version,
      metadata: fields.metadata,
      gpu: fields.gpu,
    };
    runner.usdQuote = quote;
    runner.price = normalized.price;
    runner.last = this.state.clock.now();
    // Node keeps reservations until an explicit stop or expiry and answers with its own list.
    return {
      ok: true,
      value: {
        runnerId: runner.id,
        orchestrator: this.state.config.runnerServiceUrl,
        heartbeatInterval: formatGoDurationMs(this.state.config.intervalMs),
        heartbeatTtl: formatGoDurationMs(this.state.config.ttlMs),
        heartbeatSecret: initial ? runner.credential : undefined,
        sessionIds: [...runner.sessions.keys()],
      },
    };
  }

  private register(requestedId: string, auth: string): Outcome<Runner> {
    if (!equalSecret(auth, this.state.config.bootstrapSecret)) {
      return failure(401, NodeErrorMessage.InvalidRunnerCredential);
    }
    if (this.state.runners.size >= NodeLimits.maxRunners)
      return failure(503, NodeErrorMessage.RunnerCapacityReached);
    const id = requestedId === '' ? this.state.newId('runner') : requestedId;
    const runner: Runner = {
      id,
      credential: this.state.newId('secret'),
      last: this.state.clock.now(),
      profile: {
        runnerUrl: '',
        app: '',
        capacity: 1,
        mode: 'persistent',
        status: 'ready',
        proxy: false,
        label: '',
        version: '',
        metadata: '',
        gpu: undefined,
      },
      usdQuote: { price: '', currency: '', unit: '' },
      price: { wei: 0n, usd: '', currency: '', unit: '' },
      sessions: new Map(),
    };
    this.state.runners.set(id, runner);
    return { ok: true, value: runner };
  }

  /** `POST /runners/{id}/unregister`: releases every session, then closes the runner's channels. */
  unregister(runnerId: string, auth: string): Outcome<void> {
    const runner = this.state.runners.get(runnerId);
    if (!runner) return failure(404, NodeErrorMessage.RunnerNotFound);
    if (!equalSecret(runner.credential, auth)) return failure(401, NodeErrorMessage.InvalidRunnerCredential);
    this.state.releaseAll(runner);
    this.state.onEvent(runnerId, 'unregistered', '');
    this.state.runners.delete(runnerId);
    return { ok: true, value: undefined };
  }

  /** The sweep Node runs every heartbeat interval: drops runners silent for longer than the TTL. */
  expire(): void {
    const now = this.state.clock.now();
    for (const runner of [...this.state.runners.values()]) {
      if (now - runner.last <= this.state.config.ttlMs) continue;
      this.state.releaseAll(runner);
      this.state.onEvent(runner.id, 'expired', '');
      this.state.runners.delete(runner.id);
    }
  }

  /** Shutdown: every session released and every channel closed; later heartbeats get 401. */
  close(): void {
    this.state.closed = true;
    for (const runner of this.state.runners.values()) {
      this.state.releaseAll(runner);
      this.state.onEvent(runner.id, 'unregistered', '');
    }
  }

  /** Usable runners with free capacity, in registration order. */
  discovery(): DiscoveryRunnerValue[] {
    const listed: DiscoveryRunnerValue[] = [];
    for (const runner of this.state.runners.values()) {
      const available = runner.profile.capacity - runner.sessions.size;
      if (!this.state.usable(runner) || available <= 0) continue;
      listed.push({
        url: this.state.discoveryUrl(runner),
        runner,
        capacityUsed: runner.sessions.size,
        capacityAvailable: available,
        price: runner.price,
      });
    }
    return listed;
  }

  counts(): { runners: number; sessions: number } {
    return { runners: this.state.runners.size, sessions: this.state.totalSessions() };
  }
}
