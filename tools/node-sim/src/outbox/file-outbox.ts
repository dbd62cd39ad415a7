import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { WinningTicket } from '@sandbox/protocol';
import { WinningTicketSchema } from '@sandbox/protocol';
import type { WinnerSink } from '../payments/payment-engine';

/** A stored winner and the file that holds it. */
export interface PendingWinner {
  readonly file: string;
  readonly ticket: WinningTicket;
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The winning-ticket outbox: one owner-only file per winner under `<data-dir>/outbox/pending`, written
 * and fsynced (file and directory) before `store` resolves, so a payment is only credited once its
 * winners survive a crash. Files are deleted only after the hand-off acknowledges them.
 */
export class FileOutbox implements WinnerSink {
  readonly pendingDir: string;
  readonly rejectedDir: string;
  #sequence = 0;
  #listeners = new Set<() => void>();

  constructor(dataDir: string) {
    this.pendingDir = join(dataDir, 'outbox', 'pending');
    this.rejectedDir = join(dataDir, 'outbox', 'rejected');
  }

  async init(): Promise<void> {
    await mkdir(this.pendingDir, { recursive: true, mode: 0o700 });
    await mkdir(this.rejectedDir, { recursive: true, mode: 0o700 });
  }

  /** Called after each store, so a sender can wake up. */
  onStored(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async store(winners: WinningTicket[]): Promise<void> {
    if (winners.length === 0) return;
    for (const ticket of winners) {
      // Sortable names keep delivery in receipt order, also across restarts.
      const name = `${String(Date.now()).padStart(15, '0')}-${String(this.#sequence++).padStart(6, '0')}-${ticket.ticketHash}.json`;
      const temporary = join(this.pendingDir, `.${name}.tmp`);
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify(ticket));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, join(this.pendingDir, name));
    }
    await fsyncPath(this.pendingDir);
    for (const listener of this.#listeners) listener();
  }

  /** The oldest pending winners (at most `limit`). */
  async pending(limit: number): Promise<PendingWinner[]> {
    const names = (await readdir(this.pendingDir))
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .sort();
    const result: PendingWinner[] = [];
    for (const name of names.slice(0, limit)) {
      const file = join(this.pendingDir, name);
      result.push({ file, ticket: WinningTicketSchema.parse(JSON.parse(await readFile(file, 'utf8'))) });
    }
    return result;
  }

  async count(): Promise<number> {
    return (await readdir(this.pendingDir)).filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .length;
  }

  /** Deletes acknowledged winners. */
  async remove(files: readonly string[]): Promise<void> {
    for (const file of files) await unlink(file).catch(() => undefined);
    if (files.length > 0) await fsyncPath(this.pendingDir);
  }

  /** Keeps a winner the hand-off refused out of the retry loop (as Node keeps it), for an operator. */
  async reject(file: string): Promise<void> {
    await rename(file, join(this.rejectedDir, file.slice(this.pendingDir.length + 1)));
    await fsyncPath(this.rejectedDir);
  }
}

/** Winners kept in memory when no hand-off is configured (they are lost on restart, as in-memory state is). */
export class MemoryWinnerSink implements WinnerSink {
  readonly winners: WinningTicket[] = [];

  store(winners: WinningTicket[]): Promise<void> {
    this.winners.push(...winners);
    return Promise.resolve();
  }
}
