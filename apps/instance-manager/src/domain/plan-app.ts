import type { AppSpec } from '@sandbox/protocol';
import type { LiveState } from './instance-state';

/** What the planner needs to know of one instance that is not gone. */
export interface InstanceView {
  id: string;
  state: LiveState;
  templateHash: string;
  /** Active sessions (reusable) or 0/1 (single-session). */
  sessions: number;
  createdAt: number;
}

/** The desired state of one app and what runs for it now. */
export interface PlanInput {
  /** Undefined once the app is deleted and its record removed. */
  spec: AppSpec | undefined;
  templateHash: string | undefined;
  deleting: boolean;
  instances: readonly InstanceView[];
  /** False while the app is in failure backoff: nothing new is started. */
  canCreate: boolean;
}

/** Fixed reasons carried by withdrawals (they reach the adapter and logs). */
export const PlanReason = {
  appDeleted: 'app deleted',
  scaledDown: 'scaled down',
  specChanged: 'spec changed',
} as const;
export type PlanReason = (typeof PlanReason)[keyof typeof PlanReason];

/** Converging actions: idempotent, so applying a plan twice changes nothing more. */
export interface AppPlan {
  create: number;
  /** Instances still starting: stopped before they are ever announced. */
  cancel: { id: string; reason: PlanReason }[];
  /** Announced instances: the adapter stops sending them work, then they are destroyed. */
  withdraw: { id: string; immediate: boolean; reason: PlanReason }[];
  /** The app is deleting and nothing of it is left: remove its record. */
  removeApp: boolean;
}

const newestFirst = (a: InstanceView, b: InstanceView) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1);

/** Removal order among idle instances: starting ones first (never announced), then the newest ready ones. */
function removalOrder(idle: readonly InstanceView[]): InstanceView[] {
  const starting = idle.filter((view) => view.state === 'starting').sort(newestFirst);
  const ready = idle.filter((view) => view.state === 'ready').sort(newestFirst);
  return [...starting, ...ready];
}

function remove(plan: AppPlan, views: readonly InstanceView[], reason: PlanReason): void {
  for (const view of views) {
    if (view.state === 'starting') plan.cancel.push({ id: view.id, reason });
    else plan.withdraw.push({ id: view.id, immediate: false, reason });
  }
}

function planDeleted(input: PlanInput): AppPlan {
  const plan: AppPlan = { create: 0, cancel: [], withdraw: [], removeApp: input.instances.length === 0 };
  // A taken single-session instance keeps its session; its release withdraws it.
  remove(
    plan,
    input.instances.filter((view) => view.state === 'starting' || view.state === 'ready'),
    PlanReason.appDeleted,
  );
  return plan;
}

function planSingleSession(input: PlanInput, spec: { warmPool: number; max: number }, hash: string): AppPlan {
  const plan: AppPlan = { create: 0, cancel: [], withdraw: [], removeApp: false };
  const live = input.instances.filter((view) => view.state !== 'withdrawing');
  const current = live.filter((view) => view.templateHash === hash);
  const idle = current.filter((view) => view.state === 'starting' || view.state === 'ready');
  const total = input.instances.length;
  if (input.canCreate) plan.create = Math.max(0, Math.min(spec.warmPool - idle.length, spec.max - total));
  const excess = Math.min(idle.length, Math.max(0, idle.length - spec.warmPool, current.length - spec.max));
  remove(plan, removalOrder(idle).slice(0, excess), PlanReason.scaledDown);
  const readyIdle = idle.filter((view) => view.state === 'ready').length;
  // Old instances go once the new pool is ready, or at once when the maximum leaves no room for it.
  const replaceNow = readyIdle >= spec.warmPool || total >= spec.max;
  const outdated = live.filter((view) => view.templateHash !== hash);
  remove(
    plan,
    outdated.filter((view) => view.state === 'starting' || (replaceNow && view.state === 'ready')),
    PlanReason.specChanged,
  );
  return plan;
}

/**
 * Reusable instances: enough for the active sessions plus one instance of headroom once there is
 * any load, between `minReplicas` and `maxReplicas`.
 */
export function desiredReusable(
  sessions: number,
  spec: { capacity: number; minReplicas: number; maxReplicas: number },
): number {
  const forLoad = sessions > 0 ? Math.ceil(sessions / spec.capacity) + 1 : 0;
  return Math.min(spec.maxReplicas, Math.max(spec.minReplicas, forLoad));
}

function planReusable(
  input: PlanInput,
  spec: { capacity: number; minReplicas: number; maxReplicas: number },
  hash: string,
): AppPlan {
  const plan: AppPlan = { create: 0, cancel: [], withdraw: [], removeApp: false };
  const live = input.instances.filter((view) => view.state !== 'withdrawing');
  const active = live.filter((view) => view.templateHash === hash);
  const desired = desiredReusable(
    active.reduce((sum, view) => sum + view.sessions, 0),
    spec,
  );
  if (input.canCreate) plan.create = Math.max(0, desired - active.length);
  const idle = active.filter((view) => view.state === 'starting' || view.sessions === 0);
  remove(plan, removalOrder(idle).slice(0, Math.max(0, active.length - desired)), PlanReason.scaledDown);
  const ready = active.filter((view) => view.state === 'ready').length;
  const outdated = live.filter((view) => view.templateHash !== hash);
  remove(
    plan,
    outdated.filter((view) => view.state === 'starting' || (ready >= desired && view.state === 'ready')),
    PlanReason.specChanged,
  );
  return plan;
}

/** Compares an app's spec with its instances and returns what to start, cancel and withdraw. */
export function planApp(input: PlanInput): AppPlan {
  const { spec, templateHash } = input;
  if (!spec || !templateHash || input.deleting) return planDeleted(input);
  return spec.instances.kind === 'single-session'
    ? planSingleSession(input, spec.instances, templateHash)
    : planReusable(input, spec.instances, templateHash);
}
