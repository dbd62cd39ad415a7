import type { InstanceState } from '@sandbox/protocol';

/** States an instance can be in before it is gone. */
export type LiveState = Exclude<InstanceState, 'gone'>;

export const LIVE_STATES: readonly LiveState[] = Object.freeze(['starting', 'ready', 'taken', 'withdrawing']);

/**
 * The state machine: the states each state may be entered from. `ready` only from `starting` (so
 * `instance-ready` happens once), `taken` only from `ready`, `gone` from anything but `gone` (so there
 * is exactly one terminal outcome). The store applies these atomically (compare-and-set in Lua).
 */
export const ENTERED_FROM: Readonly<Record<InstanceState, readonly InstanceState[]>> = Object.freeze({
  starting: [],
  ready: ['starting'],
  taken: ['ready'],
  withdrawing: ['starting', 'ready', 'taken'],
  gone: LIVE_STATES,
});

/** Whether `from → to` is a transition of the state machine. */
export function canTransition(from: InstanceState, to: InstanceState): boolean {
  return ENTERED_FROM[to].includes(from);
}
