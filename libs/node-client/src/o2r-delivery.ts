import { O2RMessageSchema, summarizeZodIssues, type O2RMessage } from '@sandbox/protocol';
import { backoffDelay, type BackoffOptions } from '@sandbox/service-kit';

/** What the reader hands over, in channel order. */
export type ReadItem =
  | { type: 'segment'; seq: number; text: string }
  /** Continue at `seq`; `gap` when Node had evicted the segments in between (`from` was asked). */
  | { type: 'move'; seq: number; gap: boolean; from: number };

/** Callbacks of an {@link O2RDelivery}. */
export interface O2RDeliveryHandlers {
  onMessage(message: O2RMessage, seq: number): void | Promise<void>;
  /** The next sequence number not yet handed over, after every item. */
  onPosition(seq: number): void;
  onGap(requestedSeq: number, resumeSeq: number): void;
  onInvalid(seq: number, issue: string): void;
  onDeliveryFailed(seq: number, error: unknown): void;
  /** Waits `ms` (returns early when the subscription stops). */
  pause(ms: number): Promise<void>;
  retry: BackoffOptions;
}

function parse(text: string): { message: O2RMessage } | { issue: string } {
  try {
    const parsed = O2RMessageSchema.safeParse(JSON.parse(text));
    return parsed.success ? { message: parsed.data } : { issue: summarizeZodIssues(parsed.error) };
  } catch {
    return { issue: 'not JSON' };
  }
}

/**
 * The delivery side of an O2R subscription: segments the reader already fetched wait here and are
 * handed over one at a time, in order, each retried until its handler accepts it. The reader never
 * waits for a handler (Node keeps only a few segments: a reader that paused while a message was
 * written to a queue would lose the ones after it); it waits only when `limit` segments are queued.
 */
export class O2RDelivery {
  private readonly items: ReadItem[] = [];
  private itemArrived: (() => void) | undefined;
  private roomMade: (() => void) | undefined;
  private finished = false;

  constructor(
    private readonly handlers: O2RDeliveryHandlers,
    private readonly limit = 1_024,
  ) {}

  get queued(): number {
    return this.items.length;
  }

  push(item: ReadItem): void {
    this.items.push(item);
    this.itemArrived?.();
  }

  /** Resolves once there is room for another item (at once, usually). */
  async room(): Promise<void> {
    while (this.items.length >= this.limit && !this.finished) {
      await new Promise<void>((resolve) => (this.roomMade = resolve));
    }
  }

  /** No more items will come: {@link run} returns once the queued ones are handed over. */
  finish(): void {
    this.finished = true;
    this.itemArrived?.();
    this.roomMade?.();
  }

  /** Hands items over until {@link finish} and the queue is empty, or `stopped()` turns true. */
  async run(stopped: () => boolean): Promise<void> {
    while (!stopped()) {
      const item = this.items.shift();
      if (item === undefined) {
        if (this.finished) return;
        await new Promise<void>((resolve) => (this.itemArrived = resolve));
        this.itemArrived = undefined;
        continue;
      }
      this.roomMade?.();
      if (item.type === 'move') {
        if (item.gap) this.handlers.onGap(item.from, item.seq);
        this.handlers.onPosition(item.seq);
        continue;
      }
      const parsed = parse(item.text);
      if ('message' in parsed) await this.deliver(parsed.message, item.seq, stopped);
      else this.handlers.onInvalid(item.seq, parsed.issue);
      if (!stopped()) this.handlers.onPosition(item.seq + 1);
    }
  }

  private async deliver(message: O2RMessage, seq: number, stopped: () => boolean): Promise<void> {
    for (let attempt = 1; !stopped(); attempt += 1) {
      try {
        await this.handlers.onMessage(message, seq);
        return;
      } catch (error) {
        this.handlers.onDeliveryFailed(seq, error);
        await this.handlers.pause(backoffDelay(attempt, this.handlers.retry));
      }
    }
  }
}
