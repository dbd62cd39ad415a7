import { TERMINAL_DRAIN_PHASES } from '@sandbox/protocol';
import type { Violation } from './soak-report';
import { HELD_AT_NODE, type SystemSnapshot } from './system-snapshot';

/** The stated bounds the live checks hold the system to. */
export interface InvariantBounds {
  /** A ready instance may be without a registration this long (while the adapter is `open`). */
  unregisteredMs: number;
  /** A registration may outlive its instance this long. */
  registeredForGoneMs: number;
  /** Node may hold more runners than the adapter registered this long (its heartbeat TTL, and slack). */
  nodeExcessMs: number;
  /** A drain must be terminal this long after its deadline. */
  drainTerminalAfterDeadlineMs: number;
}

export const DEFAULT_BOUNDS: InvariantBounds = {
  unregisteredMs: 90_000,
  registeredForGoneMs: 30_000,
  nodeExcessMs: 45_000,
  drainTerminalAfterDeadlineMs: 300_000,
};

/** A condition that breaks an invariant once it lasts past `boundMs` (0: at once), from `fromMs` or from when first seen. */
interface Condition {
  boundMs: number;
  invariant: string;
  detail: string;
  fromMs?: number;
}

/**
 * Checks the registration and drain invariants over successive snapshots. A condition is reported
 * once when it has lasted past its bound, and again only after it cleared and came back.
 */
export class InvariantTracker {
  readonly violations: Violation[] = [];
  /** Condition key → since when it holds. */
  readonly #since = new Map<string, number>();
  readonly #reported = new Set<string>();
  readonly #drains = new Map<string, string>();

  /** `startMs`: the run's start (epoch ms); violations carry their offset from it. */
  constructor(
    private readonly startMs: number,
    private readonly bounds: InvariantBounds = DEFAULT_BOUNDS,
  ) {}

  observe(snapshot: SystemSnapshot): void {
    const active = new Map<string, Condition>();
    this.#registrationConditions(snapshot, active);
    this.#drainConditions(snapshot, active);
    for (const [key, condition] of active) {
      const since = this.#since.get(key) ?? condition.fromMs ?? snapshot.atMs;
      this.#since.set(key, since);
      const due = condition.boundMs === 0 || snapshot.atMs - since > condition.boundMs;
      if (due && !this.#reported.has(key)) {
        this.#reported.add(key);
        this.violations.push({
          invariant: condition.invariant,
          atMs: snapshot.atMs - this.startMs,
          detail: condition.detail,
        });
      }
    }
    for (const key of [...this.#since.keys()]) {
      if (active.has(key) || this.#unreadable(key, snapshot)) continue;
      this.#since.delete(key);
      this.#reported.delete(key);
    }
  }

  /** At the end of the run: every drain seen must be terminal. */
  finish(atMs: number): void {
    const offset = atMs - this.startMs;
    for (const [id, phase] of this.#drains) {
      if (!TERMINAL_DRAIN_PHASES.includes(phase as never))
        this.violations.push({
          invariant: 'drain-terminal',
          atMs: offset,
          detail: `drain ${id} ended the run ${phase}`,
        });
    }
  }

  /** A condition whose source was unreadable this time neither clears nor grows. */
  #unreadable(key: string, snapshot: SystemSnapshot): boolean {
    if (key.startsWith('drain:')) return snapshot.drains === undefined;
    if (key.startsWith('node-excess'))
      return snapshot.nodeRunners === undefined || snapshot.registrations === undefined;
    return snapshot.instances === undefined || snapshot.registrations === undefined;
  }

  #registrationConditions(snapshot: SystemSnapshot, active: Map<string, Condition>): void {
    const { instances, registrations } = snapshot;
    if (instances === undefined || registrations === undefined) return;
    const held = registrations.filter((r) => HELD_AT_NODE.includes(r.state));
    const byRunner = new Map<string, string[]>();
    for (const r of held) byRunner.set(r.runnerId, [...(byRunner.get(r.runnerId) ?? []), r.instanceId]);
    for (const [runnerId, ids] of byRunner) {
      if (ids.length > 1)
        active.set(`twice:${runnerId}`, {
          boundMs: 0,
          invariant: 'runner-registered-twice',
          detail: `runner ${runnerId} holds instances ${ids.join(', ')}`,
        });
    }
    const live = new Set(instances.filter((i) => i.state !== 'gone').map((i) => i.instanceId));
    for (const r of held.filter((reg) => !live.has(reg.instanceId)))
      active.set(`gone:${r.instanceId}`, {
        boundMs: this.bounds.registeredForGoneMs,
        invariant: 'registered-for-gone-instance',
        detail: `runner ${r.runnerId} stays registered for instance ${r.instanceId}, which is gone`,
      });
    const registered = new Set(held.map((r) => r.instanceId));
    if (snapshot.drainMode === 'open') {
      for (const i of instances.filter((inst) => inst.state === 'ready' && !registered.has(inst.instanceId)))
        active.set(`unregistered:${i.instanceId}`, {
          boundMs: this.bounds.unregisteredMs,
          invariant: 'instance-without-registration',
          detail: `ready instance ${i.instanceId} of ${i.app} has no registration at Node`,
        });
    }
    if (snapshot.nodeRunners !== undefined && snapshot.nodeRunners > held.length)
      active.set('node-excess', {
        boundMs: this.bounds.nodeExcessMs,
        invariant: 'runner-registered-twice',
        detail: `Node holds ${snapshot.nodeRunners} runners for ${held.length} registrations`,
      });
  }

  #drainConditions(snapshot: SystemSnapshot, active: Map<string, Condition>): void {
    for (const drain of snapshot.drains ?? []) {
      this.#drains.set(drain.id, drain.phase);
      if (TERMINAL_DRAIN_PHASES.includes(drain.phase) || snapshot.atMs < drain.deadlineMs) continue;
      active.set(`drain:${drain.id}`, {
        boundMs: this.bounds.drainTerminalAfterDeadlineMs,
        fromMs: drain.deadlineMs,
        invariant: 'drain-terminal',
        detail: `drain ${drain.id} is still ${drain.phase} past its deadline`,
      });
    }
  }
}
