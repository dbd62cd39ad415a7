import { MAX_TICKETS_PER_BATCH, WinningTicketIntakeResponseSchema } from '@sandbox/protocol';
import { backoffDelay, systemClock } from '@sandbox/service-kit';
import type { Logger } from 'pino';
import type { FileOutbox, PendingWinner } from './file-outbox';

export interface OutboxSenderOptions {
  readonly outbox: FileOutbox;
  /** The hand-off endpoint (`POST`, body `WinningTicketBatch`). */
  readonly url: string;
  /** Sent as `Authorization: Bearer <secret>`. Secret. */
  readonly secret: string;
  readonly logger: Logger;
  /** @defaultValue 250 */
  readonly initialBackoffMs?: number;
  /** @defaultValue 30000 */
  readonly maxBackoffMs?: number;
  /** Injected for tests. @defaultValue `systemClock.sleep` */
  readonly delay?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** What one delivery attempt achieved. */
type Attempt = 'delivered' | 'failed' | 'empty';

/**
 * Sends the outbox in batches of up to 100, oldest first; deletes a winner only after a 2xx
 * acknowledgement names it accepted or duplicate; retries everything else with capped exponential
 * backoff; picks up what a previous run left behind.
 */
export class OutboxSender {
  readonly #abort = new AbortController();
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  delivered = 0;

  constructor(private readonly options: OutboxSenderOptions) {}

  start(): void {
    this.options.outbox.onStored(() => this.#wake?.());
    this.#loop = this.run();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    this.#wake?.();
    await this.#loop;
  }

  private async run(): Promise<void> {
    const delay = this.options.delay ?? systemClock.sleep;
    const backoff = {
      initialMs: this.options.initialBackoffMs ?? 250,
      maxMs: this.options.maxBackoffMs ?? 30_000,
    };
    let failures = 0;
    while (!this.#abort.signal.aborted) {
      const attempt = await this.attempt().catch((error: unknown): Attempt => {
        this.options.logger.warn({ err: error }, 'winning ticket hand-off failed');
        return 'failed';
      });
      if (attempt === 'delivered') {
        failures = 0;
        continue;
      }
      if (attempt === 'empty') {
        // Idle until a new winner is stored (or a second passes, in case files appeared otherwise).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1_000);
          timer.unref();
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        continue;
      }
      failures += 1;
      await delay(backoffDelay(failures, { ...backoff, jitter: 'none' }), this.#abort.signal);
    }
  }

  private async attempt(): Promise<Attempt> {
    const batch = await this.options.outbox.pending(MAX_TICKETS_PER_BATCH);
    if (batch.length === 0) return 'empty';
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.options.secret}` },
      body: JSON.stringify({ tickets: batch.map((item) => item.ticket) }),
      signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(30_000)]),
    });
    const text = await response.text();
    if (response.status < 200 || response.status > 299) {
      this.options.logger.warn(
        { status: response.status, tickets: batch.length },
        'winning ticket hand-off refused',
      );
      return 'failed';
    }
    const parsed = WinningTicketIntakeResponseSchema.safeParse(JSON.parse(text || 'null'));
    if (!parsed.success || parsed.data.results.length !== batch.length) {
      this.options.logger.warn(
        { status: response.status },
        'winning ticket hand-off answered without a valid acknowledgement',
      );
      return 'failed';
    }
    await this.settle(batch, parsed.data.results);
    return 'delivered';
  }

  private async settle(
    batch: PendingWinner[],
    results: Array<{ index: number; status: string }>,
  ): Promise<void> {
    const acknowledged: string[] = [];
    for (const result of results) {
      const item = batch[result.index];
      if (!item) continue;
      if (result.status === 'rejected') {
        this.options.logger.error(
          { ticketHash: item.ticket.ticketHash },
          'winning ticket rejected by hand-off',
        );
        await this.options.outbox.reject(item.file);
      } else acknowledged.push(item.file);
    }
    await this.options.outbox.remove(acknowledged);
    this.delivered += acknowledged.length;
  }
}

/** `--handoff-url` as given, or with `/v1/winning-tickets` appended when it has no path. */
export function handoffEndpoint(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = '/v1/winning-tickets';
  return parsed.toString();
}
