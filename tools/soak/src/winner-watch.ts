import { mkdirSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { RedeemerLedgerSchema, type RedeemerLedger, type WinnerLedger } from './winner-ledger';

/**
 * Fills the ledger from the Node simulator's outbox: every file name that appears in `pending/` or
 * `rejected/` (inotify, and a full listing every `scanMs` in case a watch misses a burst).
 */
export function watchOutbox(dataDir: string, ledger: WinnerLedger, scanMs = 2_000): { close(): void } {
  const folders = ['pending', 'rejected'].map((name) => join(dataDir, 'outbox', name));
  const watchers: FSWatcher[] = [];
  for (const folder of folders) {
    mkdirSync(folder, { recursive: true });
    watchers.push(
      watch(folder, (_event, name) => {
        if (name) ledger.observe(name, Date.now());
      }),
    );
  }
  const scan = () => {
    for (const folder of folders) {
      try {
        for (const name of readdirSync(folder)) ledger.observe(name, Date.now());
      } catch {
        // Recreated by the simulator's next run; the next scan reads it.
      }
    }
  };
  scan();
  const timer = setInterval(scan, scanMs);
  return {
    close: () => {
      clearInterval(timer);
      for (const watcher of watchers) watcher.close();
      scan();
    },
  };
}

/** How many winners wait in the outbox (not yet accepted by redemption-handoff). */
export function pendingWinners(dataDir: string): number {
  try {
    return readdirSync(join(dataDir, 'outbox', 'pending')).filter((name) => name.endsWith('.json')).length;
  } catch {
    return 0;
  }
}

/** The redeemer simulator's ledger (`GET /sim/ledger`, loopback, no credential). */
export async function readRedeemerLedger(redeemerUrl: string): Promise<RedeemerLedger> {
  const response = await fetch(`${redeemerUrl}/sim/ledger`, { signal: AbortSignal.timeout(30_000) });
  if (response.status !== 200) throw new Error(`GET /sim/ledger answered ${response.status}`);
  return RedeemerLedgerSchema.parse(await response.json());
}

/** The redeemer's decision loop runs on its own; the soak asks it to decide what it has now. */
export async function redeemNow(redeemerUrl: string): Promise<void> {
  const response = await fetch(`${redeemerUrl}/sim/redeem`, {
    method: 'POST',
    signal: AbortSignal.timeout(30_000),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`POST /sim/redeem answered ${response.status}`);
}
