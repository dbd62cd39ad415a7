import { Mutex } from 'async-mutex';
import type { O2RSessionEvent, SessionEventSource } from '@sandbox/protocol';
import type { SessionEventsPublisher } from '../../events/session-events.publisher';
import type { PendingRelease } from '../state/registration-record';

/** Released session ids remembered per runner, so a late or replayed event cannot revive them. */
const TOMBSTONES = 512;

/** Dependencies of a {@link SessionTracker}. */
export interface SessionTrackerDeps {
  instanceId: string;
  runnerId: string;
  publisher: SessionEventsPublisher;
  now: () => number;
  /** The session set changed (persist it, maybe adjust the capacity). */
  onChange(): void;
  /** Counts a published session event. */
  onPublished(event: 'reserved' | 'released', source: SessionEventSource): void;
}

/**
 * One runner's sessions as Node reports them. O2R events and heartbeat `session_ids` both feed it;
 * each change is published to instance-manager BEFORE it is applied (and saved), so a crash can
 * repeat an event (deduplicated by job id) but never lose one.
 */
export class SessionTracker {
  /** Active sessions, each with the order mark it was learned at (see {@link mark}). */
  private readonly active = new Map<string, number>();
  private marks = 0;
  private readonly tombstones = new Set<string>();
  private pending: PendingRelease[];
  private readonly lock = new Mutex();

  constructor(
    private readonly deps: SessionTrackerDeps,
    initial: { sessions: readonly string[]; pendingReleases: readonly PendingRelease[] },
  ) {
    // Sessions loaded from Redis are older than any heartbeat this process sends (mark 0).
    for (const id of initial.sessions) this.active.set(id, 0);
    this.pending = [...initial.pendingReleases];
  }

  /** Active session ids, in the order they were learned. */
  ids(): string[] {
    return [...this.active.keys()];
  }

  get count(): number {
    return this.active.size;
  }

  /** The persisted form. */
  snapshot(): { sessions: string[]; pendingReleases: PendingRelease[] } {
    return { sessions: this.ids(), pendingReleases: this.pending.map((entry) => ({ ...entry })) };
  }

  /** Runs `operation` after every earlier one (O2R deliveries and reconciliations never interleave). */
  exclusive<T>(operation: () => Promise<T>): Promise<T> {
    return this.lock.runExclusive(operation);
  }

  /** An O2R `reserved` or `released`; rejects when publishing fails (the subscriber redelivers). */
  applyO2R(event: O2RSessionEvent): Promise<void> {
    const at = new Date(event.timestamp).toISOString();
    return this.exclusive(async () => {
      if (event.event === 'reserved') await this.reserve(event.session, at, 'o2r');
      else await this.release(event.session, at, 'o2r');
    });
  }

  /**
   * A point in the order of what this tracker learns, taken when a heartbeat leaves: every session
   * learned before it has a smaller mark, every one learned after a larger one. An order, not a
   * time: a session learned in the same millisecond as the heartbeat left is still placed exactly.
   */
  mark(): number {
    return (this.marks += 1);
  }

  /**
   * Node's authoritative `session_ids` from a heartbeat that left at `sentMark` ({@link mark}):
   * sessions Node lists that were never heard of are reserved; sessions known before `sentMark` that
   * Node no longer lists are released (one learned while the heartbeat was in flight is left for the
   * next one).
   */
  reconcile(nodeIds: readonly string[], sentMark: number, source: SessionEventSource): Promise<void> {
    if (this.agreesWith(nodeIds, sentMark)) return Promise.resolve();
    return this.exclusive(async () => {
      const at = new Date(this.deps.now()).toISOString();
      const listed = new Set(nodeIds);
      for (const id of nodeIds) await this.reserve(id, at, source);
      for (const [id, learnedAt] of [...this.active]) {
        if (!listed.has(id) && learnedAt < sentMark) await this.release(id, at, source);
      }
    });
  }

  /**
   * Whether {@link reconcile} would change nothing (the usual heartbeat): every listed session is
   * known (or was released) and every session known before `sentMark` is listed. Sound without the
   * lock: an operation in flight only adds sessions with newer marks or releases them for good.
   */
  private agreesWith(nodeIds: readonly string[], sentMark: number): boolean {
    for (const id of nodeIds) if (!this.active.has(id) && !this.tombstones.has(id)) return false;
    if (this.active.size === 0) return true;
    if (nodeIds.length > 64) return false;
    for (const [id, learnedAt] of this.active) {
      if (learnedAt < sentMark && !nodeIds.includes(id)) return false;
    }
    return true;
  }

  /**
   * Node no longer has the runner (unregistered, or it lost the registration): every active session
   * ended. They are queued as pending releases at once and published by {@link flushPending}.
   */
  dropAll(source: SessionEventSource): void {
    if (this.active.size === 0) return;
    const at = new Date(this.deps.now()).toISOString();
    for (const id of this.active.keys()) {
      this.pending.push({ sessionId: id, source, at });
      this.remember(id);
    }
    this.active.clear();
    this.deps.onChange();
  }

  /** Publishes pending releases; keeps those that failed for the next call. */
  flushPending(): Promise<void> {
    return this.exclusive(async () => {
      while (this.pending.length > 0) {
        const [entry] = this.pending;
        if (!entry) break;
        await this.deps.publisher.released(this.event(entry.sessionId, entry.at, entry.source));
        this.deps.onPublished('released', entry.source);
        this.pending.shift();
        this.deps.onChange();
      }
    });
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  private async reserve(id: string, at: string, source: SessionEventSource): Promise<void> {
    if (this.active.has(id) || this.tombstones.has(id)) return;
    await this.deps.publisher.reserved(this.event(id, at, source));
    this.deps.onPublished('reserved', source);
    this.active.set(id, this.mark());
    this.deps.onChange();
  }

  private async release(id: string, at: string, source: SessionEventSource): Promise<void> {
    if (this.tombstones.has(id)) return;
    // A release of a session never heard of is still published: a single-session instance was used.
    await this.deps.publisher.released(this.event(id, at, source));
    this.deps.onPublished('released', source);
    this.active.delete(id);
    this.remember(id);
    this.deps.onChange();
  }

  private remember(id: string): void {
    this.tombstones.add(id);
    if (this.tombstones.size > TOMBSTONES) {
      const oldest = this.tombstones.values().next().value;
      if (oldest !== undefined) this.tombstones.delete(oldest);
    }
  }

  private event(sessionId: string, at: string, source: SessionEventSource) {
    return { instanceId: this.deps.instanceId, runnerId: this.deps.runnerId, sessionId, at, source };
  }
}
