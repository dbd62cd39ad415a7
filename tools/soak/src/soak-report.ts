import { FAULT_KINDS, type FaultKind } from './fault-plan';
import type { LedgerComparison } from './winner-ledger';

/** A fault as it was injected, and when the system was whole again (undefined: never, in the run). */
export interface FaultRecord {
  kind: FaultKind;
  target: string;
  /** Wall-clock ISO time it was injected. */
  at: string;
  /** Offset from the soak's start. */
  atMs: number;
  durationMs: number;
  recoveryMs?: number;
  /** Why the fault could not be injected (e.g. no instance to kill); not counted as injected. */
  skipped?: string;
}

/** One broken invariant. */
export interface Violation {
  invariant: string;
  atMs: number;
  detail: string;
}

/** Nearest-rank percentile of `values`; undefined when there are none. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/** Per kind: injected, skipped, recovered, never recovered, recovery p50/p99. */
export interface FaultSummary {
  injected: number;
  skipped: number;
  recovered: number;
  unrecovered: number;
  recoveryP50Ms?: number;
  recoveryP99Ms?: number;
}

export function summarizeFaults(faults: readonly FaultRecord[]): Record<FaultKind, FaultSummary> {
  const summary = {} as Record<FaultKind, FaultSummary>;
  for (const kind of FAULT_KINDS) {
    const ofKind = faults.filter((fault) => fault.kind === kind);
    const injected = ofKind.filter((fault) => fault.skipped === undefined);
    const times = injected.flatMap((fault) => (fault.recoveryMs === undefined ? [] : [fault.recoveryMs]));
    summary[kind] = {
      injected: injected.length,
      skipped: ofKind.length - injected.length,
      recovered: times.length,
      unrecovered: injected.length - times.length,
      recoveryP50Ms: percentile(times, 50),
      recoveryP99Ms: percentile(times, 99),
    };
  }
  return summary;
}

/** The report a run writes (JSON) and prints. */
export interface SoakReport {
  seed: number;
  minutes: number;
  startedAt: string;
  endedAt: string;
  /** Ended by Ctrl-C (or SIGTERM) before its time. */
  interrupted: boolean;
  /** Why the soak could not run (the stack or the apps did not come up). */
  startError?: string;
  faults: Record<FaultKind, FaultSummary>;
  faultLog: FaultRecord[];
  ledger?: LedgerComparison;
  violations: Violation[];
  /** Anything of the run still on the host after cleanup (goal: none). */
  leftovers: string[];
  /** Client runs completed and failed; sessions held with a stream open, and of those cut early. */
  clients: { sessions: number; failures: number; held: number; cut: number; lastErrors: string[] };
}

const ms = (value: number | undefined) => (value === undefined ? '-' : `${(value / 1000).toFixed(1)}s`);

/** The report as lines for the terminal. */
export function formatReport(report: SoakReport): string {
  const lines = [
    `soak report (seed ${report.seed}, ${report.minutes} min${report.interrupted ? ', interrupted' : ''})`,
    `  ${report.startedAt} .. ${report.endedAt}`,
    '  fault kind         injected skipped recovered  p50     p99',
  ];
  for (const kind of FAULT_KINDS) {
    const s = report.faults[kind];
    lines.push(
      `  ${kind.padEnd(18)} ${String(s.injected).padStart(8)} ${String(s.skipped).padStart(7)} ` +
        `${String(s.recovered).padStart(9)}  ${ms(s.recoveryP50Ms).padEnd(7)} ${ms(s.recoveryP99Ms)}`,
    );
  }
  const ledger = report.ledger;
  lines.push(
    ledger === undefined
      ? '  winners: ledger not read'
      : `  winners: ${ledger.produced} produced, ${ledger.atRedeemer} at the redeemer, ${ledger.lost.length} lost, ` +
          `${ledger.submittedTwice.length} submitted twice, ${ledger.undecided.length} undecided`,
    `  client runs: ${report.clients.sessions} completed, ${report.clients.failures} failed; ` +
      `${report.clients.held} sessions held with a stream, ${report.clients.cut} of them cut early`,
    ...(report.startError === undefined ? [] : [`  the soak could not run: ${report.startError}`]),
    `  invariant violations: ${report.violations.length}`,
    ...report.violations.map((v) => `    ${ms(v.atMs)} ${v.invariant}: ${v.detail}`),
    `  left on the host: ${report.leftovers.length === 0 ? 'nothing' : report.leftovers.join(', ')}`,
  );
  return `${lines.join('\n')}\n`;
}
