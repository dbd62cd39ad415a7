import { O2RMessageSchema, summarizeZodIssues, type O2RMessage } from '@sandbox/protocol';
import { realSchedule, type Schedule } from '@sandbox/service-kit';
import { backoffDelay, type BackoffOptions } from './backoff';
import { defaultHttpTransport, type HttpTransport } from './http-transport';
import { readTrickleSegment, type TrickleReadOutcome } from './trickle-read';

/** Default time without any O2R segment (Node sends a keepalive every 10 s) before reconnecting. */
export const DEFAULT_O2R_KEEPALIVE_TIMEOUT_MS = 25_000;

/** Why the subscriber stopped for good: the channel is unknown (404) or Node closed it. */
export type O2REndReason = 'gone' | 'closed';

/** Diagnostics of a subscriber, for logs and metrics. */
export type O2RSubscriberEvent =
  | { type: 'gap'; requestedSeq: number; resumeSeq: number }
  | { type: 'reconnect'; reason: 'keepalive-timeout' | 'network' | 'status'; status?: number }
  | { type: 'invalid-message'; seq: number; issue: string }
  | { type: 'delivery-failed'; seq: number; error: unknown }
  | { type: 'end'; reason: O2REndReason };

/** Options of {@link createO2RSubscriber}. */
export interface O2RSubscriberOptions {
  /** The O2R channel URL Node returned (`o2r.url`). */
  url: string;
  /** First sequence number to read. @defaultValue 0 (a new channel) */
  startSeq?: number;
  /**
   * Called for every message, in order. Awaited: the next segment is requested only after it
   * resolves; if it throws, the same message is delivered again after a backoff.
   */
  onMessage(message: O2RMessage, seq: number): void | Promise<void>;
  onEvent?(event: O2RSubscriberEvent): void;
  /** @defaultValue {@link DEFAULT_O2R_KEEPALIVE_TIMEOUT_MS} */
  keepaliveTimeoutMs?: number;
  /** Backoff after failed requests and deliveries. @defaultValue 250 ms doubling to 5 s */
  retry?: BackoffOptions;
  /** @defaultValue {@link defaultHttpTransport} */
  transport?: HttpTransport;
  /** Timers for the watchdog and backoffs. @defaultValue the real clock */
  schedule?: Schedule;
  /** Milliseconds clock. @defaultValue `Date.now` */
  now?: () => number;
}

/** A running O2R subscription. */
export interface O2RSubscriber {
  readonly url: string;
  /** The next sequence number it will request (persist this to resume after a restart). */
  readonly seq: number;
  /** When the last segment (keepalive or event) arrived. */
  readonly lastMessageAt: number | undefined;
  /** True while a long-poll is waiting on Node. */
  readonly connected: boolean;
  /** Resolves once the subscription is over: ended by Node, or stopped. */
  readonly done: Promise<O2REndReason | 'stopped'>;
  /** Stops polling (aborting the request in flight); resolves once the loop has exited. */
  stop(): Promise<void>;
}

type PollOutcome = TrickleReadOutcome | { type: 'lost'; reason: 'keepalive-timeout' | 'network' };

/**
 * Follows a runner's O2R trickle channel by long-polling `GET <url>/<seq>`: one message per segment,
 * in order. On 470 (the segment was evicted, or is too far ahead) it resumes from
 * `Lp-Trickle-Latest`; on 404 or a closed channel it ends; on network errors and other statuses it
 * retries with backoff; when no segment arrives for `keepaliveTimeoutMs` (Node publishes a keepalive
 * every 10 s) it drops the request and polls again. Starts at once.
 */
export function createO2RSubscriber(options: O2RSubscriberOptions): O2RSubscriber {
  return new O2RSubscription(options);
}

class O2RSubscription implements O2RSubscriber {
  readonly url: string;
  readonly done: Promise<O2REndReason | 'stopped'>;
  seq: number;
  lastMessageAt: number | undefined;
  connected = false;
  private readonly base: string;
  private readonly transport: HttpTransport;
  private readonly schedule: Schedule;
  private readonly now: () => number;
  private readonly retry: BackoffOptions;
  private quietSince: number;
  private stopped = false;
  private current: AbortController | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: O2RSubscriberOptions) {
    this.url = options.url;
    this.base = options.url.replace(/\/+$/u, '');
    this.seq = options.startSeq ?? 0;
    this.transport = options.transport ?? defaultHttpTransport;
    this.schedule = options.schedule ?? realSchedule;
    this.now = options.now ?? Date.now;
    this.retry = options.retry ?? { initialMs: 250, maxMs: 5_000 };
    this.quietSince = this.now();
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.abort();
    this.wake?.();
    await this.done;
  }

  private emit(event: O2RSubscriberEvent): void {
    this.options.onEvent?.(event);
  }

  private async loop(): Promise<O2REndReason | 'stopped'> {
    let failures = 0;
    while (!this.stopped) {
      const outcome = await this.pollOnce();
      if (this.stopped) break;
      if (outcome.type === 'end') {
        this.emit({ type: 'end', reason: outcome.reason });
        return outcome.reason;
      }
      if (outcome.type === 'lost' || outcome.type === 'retry') {
        const reason = outcome.type === 'lost' ? outcome.reason : 'status';
        this.emit({
          type: 'reconnect',
          reason,
          ...(outcome.type === 'retry' ? { status: outcome.status } : {}),
        });
        // After a watchdog abort the same read is simply repeated; errors back off.
        if (reason !== 'keepalive-timeout') await this.pause(backoffDelay((failures += 1), this.retry));
        continue;
      }
      failures = 0;
      if (outcome.type === 'move') {
        if (outcome.gap) this.emit({ type: 'gap', requestedSeq: this.seq, resumeSeq: outcome.seq });
        this.seq = outcome.seq;
      } else await this.handleSegment(outcome.seq, outcome.text);
    }
    return 'stopped';
  }

  /** One long-poll, under the keepalive watchdog. */
  private async pollOnce(): Promise<PollOutcome> {
    const controller = new AbortController();
    this.current = controller;
    let watchdogFired = false;
    const watchdog = this.schedule(
      () => {
        watchdogFired = true;
        controller.abort();
      },
      Math.max(
        0,
        this.quietSince + (this.options.keepaliveTimeoutMs ?? DEFAULT_O2R_KEEPALIVE_TIMEOUT_MS) - this.now(),
      ),
    );
    this.connected = true;
    try {
      return await readTrickleSegment(this.transport, this.base, this.seq, controller.signal);
    } catch {
      if (!watchdogFired) return { type: 'lost', reason: 'network' };
      this.quietSince = this.now();
      return { type: 'lost', reason: 'keepalive-timeout' };
    } finally {
      this.connected = false;
      watchdog.cancel();
      this.current = undefined;
    }
  }

  private async handleSegment(seq: number, text: string): Promise<void> {
    this.lastMessageAt = this.now();
    this.quietSince = this.lastMessageAt;
    let parsed: ReturnType<typeof O2RMessageSchema.safeParse> | undefined;
    try {
      parsed = O2RMessageSchema.safeParse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    if (parsed?.success) await this.deliver(parsed.data, seq);
    else
      this.emit({
        type: 'invalid-message',
        seq,
        issue: parsed ? summarizeZodIssues(parsed.error) : 'not JSON',
      });
    if (!this.stopped) this.seq = seq + 1;
  }

  /** Hands a message over until the handler accepts it (or the subscription stops). */
  private async deliver(message: O2RMessage, seq: number): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt += 1) {
      try {
        await this.options.onMessage(message, seq);
        return;
      } catch (error) {
        this.emit({ type: 'delivery-failed', seq, error });
        await this.pause(backoffDelay(attempt, this.retry));
      }
    }
  }

  /** Waits `ms`, or less if stopped. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.schedule(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        timer.cancel();
        resolve();
      };
    });
  }
}
