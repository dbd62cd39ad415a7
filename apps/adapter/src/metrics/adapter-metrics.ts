import type { RunnerState, SessionEventSource } from '@sandbox/protocol';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Seconds; heartbeats to a local Node take milliseconds, a struggling one seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds a heartbeat started after its due time. */
const DELAY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Seconds from Node's O2R event timestamp to its processing here. */
const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Kinds of calls to Node. */
export type NodeCallKind = 'bootstrap' | 'heartbeat' | 'unregister';

/** Why a runner was registered: first time, after Node lost it (401), or after a drain parked it. */
export type RegistrationReason = 'initial' | 're-register' | 'resume';

/** The adapter's metrics. No label ever carries a session id, runner id or credential. */
export interface AdapterMetrics {
  nodeCall(kind: NodeCallKind, seconds: number): void;
  nodeFailure(kind: NodeCallKind, status: string): void;
  registration(reason: RegistrationReason): void;
  beatDelay(seconds: number): void;
  o2rLag(seconds: number): void;
  /** A 470: `lost` segments were evicted before they were read. */
  o2rGap(lost: number): void;
  o2rReconnect(reason: string): void;
  sessionEvent(event: 'reserved' | 'released', source: SessionEventSource): void;
}

/** Current counts for the gauges, read at scrape time. */
export interface RunnerCounts {
  byState: Partial<Record<RunnerState, number>>;
  /** Runners holding a live credential with Node. */
  registered: number;
  o2rConnected: number;
  /** Registered runners holding an O2R subscription slot (their sessions arrive at once). */
  o2rFollowed: number;
  /** Registered runners without one (their sessions are learned from heartbeats). */
  o2rUnfollowed: number;
  /** Node's refusal of every failed runner (`failed` state), as status and Node's reason. */
  failures: Array<{ status: number; reason: string }>;
}

type Registers = Registry[];

/** Calls to Node: latency, failures, registrations and scheduling delay. */
function callSeries(registers: Registers) {
  return {
    latency: new Histogram({
      name: 'adapter_node_request_duration_seconds',
      help: 'Latency of successful calls to Node (bootstrap, heartbeat, unregister).',
      labelNames: ['kind'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    failures: new Counter({
      name: 'adapter_node_request_failures_total',
      help: 'Failed calls to Node by kind and HTTP status (or network, timeout, invalid-response).',
      labelNames: ['kind', 'status'],
      registers,
    }),
    registrations: new Counter({
      name: 'adapter_registrations_total',
      help: 'Successful registrations with the bootstrap secret, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    delay: new Histogram({
      name: 'adapter_heartbeat_delay_seconds',
      help: 'How late scheduled calls to Node started after their due time.',
      buckets: DELAY_BUCKETS,
      registers,
    }),
  };
}

/** The O2R subscriptions and the session events they feed. */
function o2rSeries(registers: Registers) {
  return {
    lag: new Histogram({
      name: 'adapter_o2r_lag_seconds',
      help: 'Time from an O2R session event (Node timestamp) to its processing by the adapter.',
      buckets: LAG_BUCKETS,
      registers,
    }),
    gaps: new Counter({
      name: 'adapter_o2r_gaps_total',
      help: 'O2R reads answered 470 (segments evicted); resumed from Lp-Trickle-Latest.',
      registers,
    }),
    lostSegments: new Counter({
      name: 'adapter_o2r_lost_segments_total',
      help: 'O2R segments Node evicted before they were read (each an event or a keepalive); heartbeats correct them.',
      registers,
    }),
    reconnects: new Counter({
      name: 'adapter_o2r_reconnects_total',
      help: 'O2R long-polls dropped and retried, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    sessionEvents: new Counter({
      name: 'adapter_session_events_total',
      help: 'session-reserved / session-released jobs published, by how the change was learned.',
      labelNames: ['event', 'source'],
      registers,
    }),
  };
}

/** Gauges read from the registrations at scrape time. */
function registerGauges(registers: Registers, counts: () => RunnerCounts): void {
  new Gauge({
    name: 'adapter_runners',
    help: 'Registrations by state.',
    labelNames: ['state'],
    registers,
    collect() {
      this.reset();
      for (const [state, value] of Object.entries(counts().byState)) this.set({ state }, value ?? 0);
    },
  });
  new Gauge({
    name: 'adapter_registered_runners',
    help: 'Runners holding a live registration (credential) with Node.',
    registers,
    collect() {
      this.set(counts().registered);
    },
  });
  new Gauge({
    name: 'adapter_o2r_followed_runners',
    help: 'Registered runners by whether they hold an O2R subscription (followed) or rely on heartbeats.',
    labelNames: ['o2r'],
    registers,
    collect() {
      const { o2rFollowed, o2rUnfollowed } = counts();
      this.set({ o2r: 'followed' }, o2rFollowed);
      this.set({ o2r: 'unfollowed' }, o2rUnfollowed);
    },
  });
  new Gauge({
    name: 'adapter_failed_runners',
    help: "Runners Node refused, by Node's status and reason (a bounded set of Node's messages).",
    labelNames: ['status', 'reason'],
    registers,
    collect() {
      this.reset();
      const byKey = new Map<string, { status: number; reason: string; count: number }>();
      for (const { status, reason } of counts().failures) {
        const key = `${status} ${reason}`;
        const entry = byKey.get(key) ?? { status, reason, count: 0 };
        entry.count += 1;
        byKey.set(key, entry);
      }
      for (const { status, reason, count } of byKey.values())
        this.set({ status: String(status), reason }, count);
    },
  });
  new Gauge({
    name: 'adapter_o2r_connected',
    help: 'O2R subscriptions with a long-poll waiting on Node.',
    registers,
    collect() {
      this.set(counts().o2rConnected);
    },
  });
}

/** Registers the adapter's series in the service registry; `counts` feeds the gauges on each scrape. */
export function createAdapterMetrics(registry: Registry, counts: () => RunnerCounts): AdapterMetrics {
  const calls = callSeries([registry]);
  const o2r = o2rSeries([registry]);
  registerGauges([registry], counts);
  // Bound once per kind (a series still appears only at its first observation): a heartbeat's
  // observation then builds no labels object and closure of its own.
  const latencyOf = {
    bootstrap: calls.latency.labels({ kind: 'bootstrap' }),
    heartbeat: calls.latency.labels({ kind: 'heartbeat' }),
    unregister: calls.latency.labels({ kind: 'unregister' }),
  } satisfies Record<NodeCallKind, unknown>;
  return {
    nodeCall: (kind, seconds) => latencyOf[kind].observe(seconds),
    nodeFailure: (kind, status) => calls.failures.inc({ kind, status }),
    registration: (reason) => calls.registrations.inc({ reason }),
    beatDelay: (seconds) => calls.delay.observe(seconds),
    o2rLag: (seconds) => o2r.lag.observe(Math.max(0, seconds)),
    o2rGap: (lost) => {
      o2r.gaps.inc();
      o2r.lostSegments.inc(Math.max(0, lost));
    },
    o2rReconnect: (reason) => o2r.reconnects.inc({ reason }),
    sessionEvent: (event, source) => o2r.sessionEvents.inc({ event, source }),
  };
}
