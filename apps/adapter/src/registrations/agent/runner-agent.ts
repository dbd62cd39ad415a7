import { Mutex } from 'async-mutex';
import type { AdapterDrainMode, InstanceWithdraw, RunnerView } from '@sandbox/protocol';
import type { Logger } from 'pino';
import type { SessionEventsPublisher } from '../../events/session-events.publisher';
import type { BeatScheduler } from '../../scheduler/beat-scheduler';
import { createAgentParts } from './agent-parts';
import type { BeatTimer, Next } from './beat-timer';
import type { CallStats } from '../node/call-stats';
import { NodeSteps } from '../node/node-steps';
import type { Persister } from '../state/persister';
import type { RegistrationRecord } from '../state/registration-record';
import { reportAbsence, type AbsenceOutcome } from './report-absence';
import { HeartbeatSender, type SenderDeps } from '../node/heartbeat-sender';
import { runnerTarget, type RunnerTarget } from '../drain/runner-target';
import { buildRunnerView } from './runner-view';
import type { SessionTracker } from '../sessions/session-tracker';

/** Dependencies of every {@link RunnerAgent}. */
export interface AgentDeps extends SenderDeps {
  publisher: SessionEventsPublisher;
  scheduler: BeatScheduler;
  save(record: RegistrationRecord): Promise<void>;
  erase(instanceId: string): Promise<void>;
  drainMode(): AdapterDrainMode;
  /** Heartbeat interval until Node has given one. */
  defaultIntervalMs: number;
  logger: Logger;
}

/**
 * Keeps one instance's registration true at Node: each run (driven by the shared scheduler) compares
 * where the registration should be ({@link runnerTarget}) with where it is, and makes one move:
 * register, heartbeat, unregister, or report the outcome to instance-manager.
 */
export class RunnerAgent {
  readonly tracker: SessionTracker;
  readonly link: HeartbeatSender;
  readonly stats: CallStats;
  private readonly timer: BeatTimer;
  private readonly persister: Persister;
  private readonly logger: Logger;
  private readonly lock = new Mutex();
  private retired = false;
  private readonly steps: NodeSteps;

  constructor(
    private readonly deps: AgentDeps,
    readonly record: RegistrationRecord,
  ) {
    const parts = createAgentParts(deps, record, {
      onSessionsChanged: () => this.onSessionsChanged(),
      run: () => this.run(),
    });
    ({ logger: this.logger, tracker: this.tracker, persister: this.persister } = parts);
    ({ stats: this.stats, timer: this.timer } = parts);
    this.link = new HeartbeatSender({ ...deps, logger: this.logger }, this);
    this.steps = new NodeSteps({
      ...parts,
      record,
      link: this.link,
      now: deps.now,
      intervalMs: () => this.intervalMs(),
      reloadBootstrapSecret: () => deps.bootstrap.reload(),
      persist: () => this.persist(),
    });
  }

  get instanceId(): string {
    return this.record.instance.instanceId;
  }

  target(): RunnerTarget {
    const { phase, withdrawal, instance } = this.record;
    const sessions = { length: this.tracker.count };
    return runnerTarget({ phase, withdrawal, instance, sessions }, this.deps.drainMode());
  }

  /** Starts: a restored registration resumes at a random phase of its interval, anything else runs at once. */
  start(restored: boolean): void {
    if (restored && this.record.node !== null) {
      this.link.o2r.start();
      this.timer.resume(this.record.node.intervalMs);
    } else this.poke();
  }

  /** Runs a step as soon as possible (state changed); during a run, right after it. */
  poke(): void {
    if (!this.retired) this.timer.poke();
  }

  persist(): Promise<void> {
    return this.persister.save();
  }

  /** Carries out an `instance-withdraw` (idempotent); resolves once the intent is saved. */
  async withdraw(request: InstanceWithdraw, at: string): Promise<void> {
    if (this.record.phase === 'withdrawn') return;
    const previous = this.record.withdrawal;
    const immediate = request.immediate || previous?.immediate === true;
    this.record.withdrawal = { reason: request.reason, immediate, requestedAt: previous?.requestedAt ?? at };
    this.record.phase = 'withdrawing';
    await this.persist();
    this.poke();
  }

  /** Stops for good (`instance-gone`): unregisters once if still registered, then deletes the record. */
  async retire(): Promise<void> {
    this.retired = true;
    this.timer.stop();
    await this.exclusive(async () => {
      if (this.record.node !== null) {
        await this.link.unregister().then(
          () => this.link.unlink('unregister'),
          (error: unknown) =>
            this.logger.warn({ err: error }, 'unregister failed; Node will expire the runner'),
        );
      }
      await this.link.o2r.stop();
      await this.tracker
        .flushPending()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'releases not published'));
    });
    await this.persister.remove();
  }

  /** Stops timers and the O2R poll without touching Node (adapter shutdown); pending saves finish. */
  async shutdown(): Promise<void> {
    this.retired = true;
    this.timer.stop();
    await this.link.o2r.stop();
    await this.persister.flush();
    this.persister.close();
  }

  /** Whether Node reflects the target, as confirmed by a call that succeeded at or after `since`. */
  settled(since: number): boolean {
    const target = this.target();
    if (target.kind === 'absent') {
      if (target.then === 'withdraw') return this.record.phase === 'withdrawn';
      if (target.then === 'fail') return this.record.node === null && this.record.failure?.reported === true;
      return this.record.node === null;
    }
    const beat = this.stats.lastBeat;
    return (
      this.record.node !== null && beat !== undefined && beat.at >= since && beat.capacity === target.capacity
    );
  }

  view(): RunnerView {
    const { record, tracker, link, stats } = this;
    return buildRunnerView(
      { record, tracker, link, lastBeat: stats.lastBeat, lastError: stats.lastError },
      this.target(),
    );
  }

  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    return this.lock.runExclusive(operation);
  }

  private run(): Promise<void> {
    return this.exclusive(async () => {
      if (this.retired) return;
      this.timer.beginRun();
      if (this.tracker.pendingCount > 0) {
        await this.tracker
          .flushPending()
          .catch((error: unknown) => this.logger.warn({ err: error }, 'releases not published yet'));
      }
      const next = await this.step();
      if (!this.retired) this.timer.after(next, this.intervalMs(), this.stats.failures);
    });
  }

  private async step(): Promise<Next> {
    const target = this.target();
    if (target.kind === 'serve') {
      return this.record.node === null
        ? this.steps.register(target.capacity)
        : this.steps.beat(target.capacity);
    }
    if (this.record.node !== null) return this.steps.unregister(target.then === 'park');
    const context = {
      record: this.record,
      tracker: this.tracker,
      publisher: this.deps.publisher,
      now: this.deps.now,
      logger: this.logger,
      persist: () => this.persist(),
    };
    return this.absent(await reportAbsence(target.then, context));
  }

  private absent(outcome: AbsenceOutcome): Next {
    if (outcome === 'done') return 'idle';
    this.stats.failed('report', outcome.error);
    return 'retry';
  }

  private intervalMs(): number {
    return this.record.node?.intervalMs ?? this.deps.defaultIntervalMs;
  }

  private onSessionsChanged(): void {
    void this.persist();
    const target = this.target();
    // A capped or withdrawing runner follows its session count at once (lower cap, or unregister).
    if (target.kind === 'absent' || target.capped) this.poke();
  }
}
