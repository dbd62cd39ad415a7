import type { AdapterDrainMode, DrainPhase, InstanceState, RunnerState } from '@sandbox/protocol';

/** What the soak reads of the system every few seconds (at `atMs`, epoch ms); a part it could not read is undefined. */
export interface SystemSnapshot {
  atMs: number;
  /** instance-manager's instances (every app). */
  instances?: { instanceId: string; app: string; state: InstanceState }[];
  /** The adapter's registrations with Node. */
  registrations?: { instanceId: string; runnerId: string; state: RunnerState }[];
  /** The adapter's drain mode: registrations are withdrawn on purpose unless `open`. */
  drainMode?: AdapterDrainMode;
  /** Runners Node (the simulator) holds (`livepeer_runners`). */
  nodeRunners?: number;
  /** Members whose readiness probe failed. */
  unreadyMembers: string[];
  /** The drain-controller's drains. */
  drains?: { id: string; phase: DrainPhase; deadlineMs: number }[];
}

/** Registration states in which Node holds the runner. */
export const HELD_AT_NODE: readonly RunnerState[] = ['registered', 'capped'];

/** Ready instances per app with a warm pool, as declared. */
export type PoolSizes = Readonly<Record<string, number>>;

/** Apps whose warm pool holds fewer ready instances than declared. */
export function shortPools(snapshot: SystemSnapshot, pools: PoolSizes): string[] {
  if (snapshot.instances === undefined) return Object.keys(pools);
  const instances = snapshot.instances;
  return Object.entries(pools)
    .filter(([app, size]) => instances.filter((i) => i.app === app && i.state === 'ready').length < size)
    .map(([app]) => app);
}

/**
 * Why the system is not whole yet (empty when it is): every member ready, every pool full, and Node
 * holding exactly the runners the adapter registered. Each reason is a fixed condition name (figures
 * go in the log, not here), so the recovery timer can tell a condition that cleared from a new one.
 */
export function unwholeReasons(snapshot: SystemSnapshot, pools: PoolSizes): string[] {
  const reasons = snapshot.unreadyMembers.map((member) => `${member} not ready`);
  for (const app of shortPools(snapshot, pools)) reasons.push(`pool of ${app} short`);
  if (snapshot.registrations === undefined || snapshot.nodeRunners === undefined) {
    reasons.push('registrations unreadable');
    return reasons;
  }
  const held = snapshot.registrations.filter((r) => HELD_AT_NODE.includes(r.state)).length;
  if (snapshot.nodeRunners !== held) reasons.push('Node and adapter disagree on runners');
  return reasons;
}
