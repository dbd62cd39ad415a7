import type { Schedule } from '@sandbox/service-kit';
import type { Logger } from 'pino';

/** A task the scheduler runs at its due time. */
export type ScheduledTask = () => Promise<void>;

/** Options of {@link createBeatScheduler}. */
export interface BeatSchedulerOptions {
  now: () => number;
  schedule: Schedule;
  /** Tasks running at once; keep it below Node's 64 control-request slots. */
  maxConcurrent: number;
  logger: Logger;
  /** How late a task started (ms after its due time), for the jitter metric. */
  onStart?(lateMs: number): void;
  /**
   * How early a task may start so that it shares a wake-up with the task due before it. Each wake-up
   * of an otherwise idle process costs more than the heartbeat it serves (the kernel's switch, cold
   * caches), and Node does not mind a beat a few tens of ms early. @defaultValue 0
   */
  earlyMs?: number;
}

/** One timer driving every runner's heartbeats. */
export interface BeatScheduler {
  /** Runs `task` for `key` at `dueAt` (replacing any earlier due time for that key). */
  set(key: string, dueAt: number, task: ScheduledTask): void;
  /** Forgets `key`'s pending run (a run in progress finishes). */
  cancel(key: string): void;
  /** Keys waiting or running. */
  readonly size: number;
  /** How early a task may start (see {@link BeatSchedulerOptions.earlyMs}). */
  readonly earlyMs: number;
  /** Stops starting tasks; resolves when the running ones have finished. */
  stop(): Promise<void>;
}

interface Entry {
  key: string;
  dueAt: number;
  task: ScheduledTask;
}

/**
 * A single-timer scheduler for up to a few hundred keys: it arms one timer for the earliest due
 * time, starts due tasks in due order with at most `maxConcurrent` running, and never runs two
 * tasks of one key at once (a key due while running waits for the run to end).
 */
export function createBeatScheduler(options: BeatSchedulerOptions): BeatScheduler {
  return new SingleTimerScheduler(options);
}

class SingleTimerScheduler implements BeatScheduler {
  private readonly waiting = new Map<string, Entry>();
  private readonly running = new Map<string, Promise<void>>();
  private timer: { cancel(): void } | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private stopped = false;
  private pumpQueued = false;
  readonly earlyMs: number;

  constructor(private readonly options: BeatSchedulerOptions) {
    this.earlyMs = options.earlyMs ?? 0;
  }

  set(key: string, dueAt: number, task: ScheduledTask): void {
    if (this.stopped) return;
    this.waiting.set(key, { key, dueAt, task });
    if (dueAt < this.timerAt) this.pumpSoon();
  }

  cancel(key: string): void {
    this.waiting.delete(key);
  }

  get size(): number {
    return new Set([...this.waiting.keys(), ...this.running.keys()]).size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.waiting.clear();
    await Promise.all(this.running.values());
  }

  /** Tasks never start inside the caller's stack (a poke from an O2R delivery, the end of a run). */
  private pumpSoon(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(this.onPumpSoon);
  }

  private readonly onPumpSoon = (): void => {
    this.pumpQueued = false;
    this.pump();
  };

  /**
   * One pass over the waiting keys, called about twice per heartbeat: it collects only the due
   * entries (usually one or two) and the next due time, so a pass allocates almost nothing however
   * many runners wait.
   */
  private pump(): void {
    if (this.stopped) return;
    const now = this.options.now();
    const horizon = now + this.earlyMs;
    let due: Entry[] | undefined;
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.waiting.values()) {
      // Entries already due wait for a free slot or for their key's run to end; both pump again.
      if (entry.dueAt > horizon) next = Math.min(next, entry.dueAt);
      else if (!this.running.has(entry.key)) (due ??= []).push(entry);
    }
    if (due !== undefined) {
      if (due.length > 1) due.sort((a, b) => a.dueAt - b.dueAt);
      for (const entry of due) {
        if (this.running.size >= this.options.maxConcurrent) break;
        this.start(entry, now);
      }
    }
    this.arm(next, now);
  }

  private start(entry: Entry, now: number): void {
    this.waiting.delete(entry.key);
    this.options.onStart?.(Math.max(0, now - entry.dueAt));
    const run = entry.task().then(
      () => this.finished(entry.key),
      (error: unknown) => {
        try {
          this.options.logger.error({ err: error, runner: entry.key }, 'scheduled task failed');
        } finally {
          this.finished(entry.key);
        }
      },
    );
    this.running.set(entry.key, run);
  }

  private finished(key: string): void {
    this.running.delete(key);
    this.pumpSoon();
  }

  private arm(at: number, now: number): void {
    if (at === this.timerAt && this.timer !== undefined) return;
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = at;
    if (!Number.isFinite(at)) return;
    this.timer = this.options.schedule(this.onTimer, Math.max(0, at - now));
  }

  /** The timer's callback, made once (a timer is armed about once per heartbeat). */
  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    this.pump();
  };
}
