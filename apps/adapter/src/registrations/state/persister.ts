import { backoffDelay, type Schedule } from '@sandbox/service-kit';
import type { Logger } from 'pino';

/** Writes one registration's latest state to Redis, in order, coalescing bursts of changes. */
export interface Persister {
  /** Schedules a save of the state as it will be when the save starts; resolves once saved. */
  save(): Promise<void>;
  /** Deletes the stored record after pending saves; later saves are ignored. */
  remove(): Promise<void>;
  /** Resolves when every queued operation is done. */
  flush(): Promise<void>;
  /** Stops retrying failed writes (shutdown). */
  close(): void;
}

/** Dependencies of {@link createPersister}. */
export interface PersisterDeps {
  write(): Promise<void>;
  erase(): Promise<void>;
  logger: Logger;
  schedule: Schedule;
}

/**
 * A serial lane of Redis writes for one registration. Saves are coalesced (a save requested while
 * another one waits is the same save) and retried with backoff until they succeed, so Redis being
 * briefly away never blocks heartbeats and never loses the latest state.
 */
export function createPersister(deps: PersisterDeps): Persister {
  return new SerialPersister(deps);
}

class SerialPersister implements Persister {
  private chain: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private removed = false;
  private closed = false;

  constructor(private readonly deps: PersisterDeps) {}

  save(): Promise<void> {
    if (this.removed) return Promise.resolve();
    if (this.queued) return this.queued;
    const next = this.chain.then(async () => {
      this.queued = undefined;
      if (!this.removed) await this.retrying('save', this.deps.write);
    });
    this.queued = next;
    this.chain = next;
    return next;
  }

  remove(): Promise<void> {
    this.removed = true;
    this.chain = this.chain.then(() => this.retrying('remove', this.deps.erase));
    return this.chain;
  }

  flush(): Promise<void> {
    return this.chain;
  }

  close(): void {
    this.closed = true;
  }

  private async retrying(what: 'save' | 'remove', operation: () => Promise<void>): Promise<void> {
    for (let attempt = 1; !this.closed; attempt += 1) {
      try {
        await operation();
        return;
      } catch (error) {
        this.deps.logger.warn(
          { err: error, attempt, operation: what },
          'registration write failed; retrying',
        );
        const ms = backoffDelay(attempt, { initialMs: 200, maxMs: 5_000 });
        await new Promise<void>((resolve) => this.deps.schedule(resolve, ms));
      }
    }
  }
}
