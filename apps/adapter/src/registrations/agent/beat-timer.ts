import { backoffDelay } from '@sandbox/service-kit';
import type { BeatScheduler } from '../../scheduler/beat-scheduler';

/** When a registration's next run should be, after a step. */
export type Next = 'periodic' | 'now' | 'retry' | 'slow-retry' | 'idle';

/** Dependencies of a {@link BeatTimer}. */
export interface BeatTimerDeps {
  key: string;
  scheduler: BeatScheduler;
  now: () => number;
  random: () => number;
  run: () => Promise<void>;
}

/**
 * One registration's place in the shared scheduler. Heartbeats keep a fixed phase of Node's
 * interval (each periodic beat is due one interval after the previous due time, so they do not
 * drift); phases are spread at random when registrations start; retries back off inside the
 * interval; a poke runs the registration as soon as possible without moving its phase.
 */
export class BeatTimer {
  private nextPeriodicDue: number | undefined;
  private pokeRequested = false;
  private stopped = false;

  constructor(private readonly deps: BeatTimerDeps) {}

  /** A restored registration: first beat at a random point of its interval. */
  resume(intervalMs: number): void {
    this.nextPeriodicDue = this.deps.now() + this.deps.random() * intervalMs;
    this.set(this.nextPeriodicDue);
  }

  /** Run as soon as possible (during a run: right after it). */
  poke(): void {
    if (this.stopped) return;
    this.pokeRequested = true;
    this.set(this.deps.now());
  }

  /** Called when a run starts: pokes made before it are served by it. */
  beginRun(): void {
    this.pokeRequested = false;
  }

  /** After a registration: the first heartbeat between half an interval and one interval later. */
  registered(intervalMs: number): void {
    this.nextPeriodicDue = this.deps.now() + intervalMs * (0.5 + 0.5 * this.deps.random());
  }

  /** After a heartbeat: the next periodic due time, re-phased only when far behind (after an outage). */
  beat(intervalMs: number): void {
    // A beat the scheduler started early serves its due time: the next one is an interval on.
    const now = this.deps.now() + this.deps.scheduler.earlyMs;
    let due = this.nextPeriodicDue ?? now;
    if (due <= now) due += intervalMs;
    if (due <= now) due = now + intervalMs;
    this.nextPeriodicDue = due;
  }

  /** Schedules the next run after a step. */
  after(next: Next, intervalMs: number, failures: number): void {
    if (this.stopped) return;
    const now = this.deps.now();
    if (this.pokeRequested || next === 'now') return this.set(now);
    switch (next) {
      case 'periodic':
        return this.set(this.nextPeriodicDue ?? now + intervalMs);
      case 'retry': {
        const backoff = {
          initialMs: Math.min(250, intervalMs / 4),
          maxMs: intervalMs,
          random: this.deps.random,
        };
        return this.set(now + backoffDelay(failures, backoff));
      }
      case 'slow-retry':
        return this.set(now + intervalMs * (0.8 + 0.2 * this.deps.random()));
      case 'idle':
        this.deps.scheduler.cancel(this.deps.key);
    }
  }

  stop(): void {
    this.stopped = true;
    this.deps.scheduler.cancel(this.deps.key);
  }

  private set(dueAt: number): void {
    this.deps.scheduler.set(this.deps.key, dueAt, this.deps.run);
  }
}
