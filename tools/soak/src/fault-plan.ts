import type { Prng } from './prng';

/** The kinds of fault the soak injects; the report counts and times recovery per kind. */
export const FAULT_KINDS = [
  'kill-member',
  'stop-member',
  'refuse-restart',
  'kill-app-process',
  'drain',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One planned fault: what, on which target, when (offset from the soak's start) and for how long. */
export interface PlannedFault {
  readonly atMs: number;
  readonly kind: FaultKind;
  /** A member name, or an app name for `kill-app-process`, or `node` for a drain. */
  readonly target: string;
  /** SIGSTOP to SIGCONT, or how long restarts are refused; 0 for the others. */
  readonly durationMs: number;
}

/** What the plan draws from. */
export interface FaultPlanOptions {
  durationMs: number;
  /** Members that may be killed, stopped or refused a restart. */
  members: readonly string[];
  /** Apps whose instances' processes may be killed. */
  apps: readonly string[];
  /** A SIGSTOP lasts past this (the services' lease TTL), by 2 to 10 s. */
  leaseTtlMs: number;
  /** Gap between the end of one fault and the next. @defaultValue [20_000, 45_000] */
  gapMs?: readonly [number, number];
  /** A drain starts every this often (±20%), the first one after one period. @defaultValue 180_000 */
  drainEveryMs?: number;
  /** Restarts refused for this long. @defaultValue [5_000, 20_000] */
  refuseMs?: readonly [number, number];
}

const MEMBER_KINDS: readonly FaultKind[] = [
  'kill-member',
  'stop-member',
  'refuse-restart',
  'kill-app-process',
];

function durationOf(kind: FaultKind, rng: Prng, options: FaultPlanOptions): number {
  const [refuseMin, refuseMax] = options.refuseMs ?? [5_000, 20_000];
  if (kind === 'stop-member') return options.leaseTtlMs + rng.int(2_000, 10_000);
  if (kind === 'refuse-restart') return rng.int(refuseMin, refuseMax);
  return 0;
}

/**
 * The whole run's faults, drawn from `rng` alone: the same seed and options give the same plan. Member
 * and app faults follow one another (each after the previous one's duration and a gap, so recovery
 * can be timed per fault); drains come on their own cadence and may overlap them.
 */
export function planFaults(rng: Prng, options: FaultPlanOptions): PlannedFault[] {
  if (options.members.length === 0) throw new Error('planFaults: no members to fault');
  const [gapMin, gapMax] = options.gapMs ?? [20_000, 45_000];
  const faults: PlannedFault[] = [];
  let at = rng.int(gapMin, gapMax);
  while (at < options.durationMs) {
    const kinds =
      options.apps.length > 0 ? MEMBER_KINDS : MEMBER_KINDS.filter((k) => k !== 'kill-app-process');
    const kind = rng.pick(kinds);
    const target = kind === 'kill-app-process' ? rng.pick(options.apps) : rng.pick(options.members);
    const durationMs = durationOf(kind, rng, options);
    faults.push({ atMs: at, kind, target, durationMs });
    at += durationMs + rng.int(gapMin, gapMax);
  }
  const every = options.drainEveryMs ?? 180_000;
  for (let drainAt = every; drainAt < options.durationMs; drainAt += every) {
    const jitter = rng.int(-Math.floor(every / 5), Math.floor(every / 5));
    const atMs = drainAt + jitter;
    if (atMs < options.durationMs) faults.push({ atMs, kind: 'drain', target: 'node', durationMs: 0 });
  }
  return faults.sort((a, b) => a.atMs - b.atMs);
}
