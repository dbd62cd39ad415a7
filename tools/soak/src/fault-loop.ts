import { setTimeout as sleep } from 'node:timers/promises';
import { injectFault, type InjectorDeps } from './fault-injector';
import type { PlannedFault } from './fault-plan';
import { createPrng } from './prng';
import type { RecoveryTimer } from './recovery-timer';
import type { FaultRecord } from './soak-report';

/** What the fault loops share: the run's start, the log, the records and the recovery timer. */
export interface FaultLoopDeps {
  /** The faults' clock: planned offsets count from here (once the system was first whole). */
  startMs: number;
  /** The run's start: records' offsets count from here, as the violations' do. */
  clockStartMs: number;
  seed: number;
  injector: Omit<InjectorDeps, 'rng'>;
  records: FaultRecord[];
  recovery: RecoveryTimer;
  say: (message: string) => void;
}

/**
 * Injects `faults` in order, each at its planned offset (or as soon as the previous one is over), until
 * the list ends or the run is aborted. Each fault's runtime choices come from a PRNG of its own,
 * derived from the seed and its index, so they do not depend on what happened before.
 */
export async function runFaults(faults: readonly PlannedFault[], deps: FaultLoopDeps): Promise<void> {
  const { signal } = deps.injector;
  for (const [index, fault] of faults.entries()) {
    const wait = deps.startMs + fault.atMs - Date.now();
    if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return;
    const injectedAt = Date.now();
    const record: FaultRecord = {
      kind: fault.kind,
      target: fault.target,
      at: new Date(injectedAt).toISOString(),
      atMs: injectedAt - deps.clockStartMs,
      durationMs: fault.durationMs,
    };
    deps.records.push(record);
    const id = deps.records.length - 1;
    deps.say(`fault #${id} ${fault.kind} ${fault.target}: injecting`);
    const rng = createPrng((deps.seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
    const outcome = await injectFault(fault, { ...deps.injector, rng }).catch((error: Error) => ({
      skipped: `injection failed: ${error.message}`,
    }));
    if ('skipped' in outcome) {
      record.skipped = outcome.skipped;
      deps.say(`fault #${id} ${fault.kind} ${fault.target}: skipped (${outcome.skipped})`);
      continue;
    }
    deps.recovery.begin(id, outcome.endedAtMs);
    deps.say(`fault #${id} ${fault.kind} ${fault.target}: ${outcome.detail}`);
  }
}
