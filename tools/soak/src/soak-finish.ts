import { setTimeout as sleep } from 'node:timers/promises';
import type { RunResult } from './soak-run';
import { sessionCutViolation } from './session-cuts';
import type { FaultRecord, Violation } from './soak-report';
import { pendingWinners, readRedeemerLedger, redeemNow } from './winner-watch';
import type { LedgerComparison, WinnerLedger } from './winner-ledger';

/** A fault's system must be whole again this long after the fault ended (pools full, runners registered). */
export const RECOVERY_BOUND_MS = 180_000;

/**
 * Waits (up to `waitMs`) until Node's outbox is empty and every winner it produced is at the redeemer,
 * has the redeemer decide what it holds, and compares. Undefined when the redeemer cannot be read.
 */
export async function settleLedger(
  ledger: WinnerLedger,
  dataDir: string,
  redeemerUrl: string,
  waitMs: number,
  say: (message: string) => void,
): Promise<LedgerComparison | undefined> {
  const deadline = Date.now() + waitMs;
  let comparison: LedgerComparison | undefined;
  while (Date.now() < deadline) {
    comparison = await readRedeemerLedger(redeemerUrl).then(
      (l) => ledger.compare(l),
      () => undefined,
    );
    if (comparison && comparison.lost.length === 0 && pendingWinners(dataDir) === 0) break;
    await sleep(2_000);
  }
  await redeemNow(redeemerUrl).catch((error: Error) => say(`the redeemer did not decide: ${error.message}`));
  comparison = await readRedeemerLedger(redeemerUrl).then(
    (l) => ledger.compare(l),
    () => comparison,
  );
  if (comparison === undefined) say('the redeemer ledger could not be read');
  return comparison;
}

/** The ledger's findings as violations: lost and twice-submitted winners. */
export function ledgerViolations(comparison: LedgerComparison | undefined, atMs: number): Violation[] {
  if (comparison === undefined)
    return [{ invariant: 'winner-ledger', atMs, detail: 'the redeemer ledger could not be read' }];
  return [
    ...comparison.lost.map((hash) => ({
      invariant: 'winner-lost',
      atMs,
      detail: `winner ${hash} never reached the redeemer`,
    })),
    ...comparison.submittedTwice.map((hash) => ({
      invariant: 'winner-submitted-twice',
      atMs,
      detail: `winner ${hash} was submitted more than once`,
    })),
  ];
}

/** Faults the system did not recover from within the bound (when the run lasted long enough to tell). */
export function recoveryViolations(
  records: readonly FaultRecord[],
  result: RunResult,
  endMs: number,
  startMs: number,
): Violation[] {
  const pending = new Map(result.recovery.pending());
  return records.flatMap((record, id) => {
    const recovery = result.recovery.recoveryMs(id);
    if (recovery !== undefined) record.recoveryMs = recovery;
    const endedAt = pending.get(id);
    const late = recovery !== undefined && recovery > RECOVERY_BOUND_MS;
    const never = endedAt !== undefined && endMs - endedAt > RECOVERY_BOUND_MS;
    if (!late && !never) return [];
    return [
      {
        invariant: 'recovery-bound',
        atMs: (endedAt ?? startMs + record.atMs) - startMs,
        detail: `fault #${id} ${record.kind} ${record.target}: not whole (pools full, runners registered) within ${RECOVERY_BOUND_MS / 1000} s`,
      },
    ];
  });
}

/** Cut sessions with no drain deadline or Node fault to explain them. */
export function sessionViolations(result: RunResult, startMs: number): Violation[] {
  const deadlines = [...result.drainDeadlinesMs];
  return result.tally.held.flatMap(
    (session) => sessionCutViolation(session, result.records, deadlines, startMs) ?? [],
  );
}
