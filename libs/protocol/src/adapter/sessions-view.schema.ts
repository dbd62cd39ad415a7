import { z } from 'zod';
import { AppNameSchema, TimestampSchema } from '../common';

/** How often the active adapter writes its sessions view. */
export const SESSIONS_VIEW_INTERVAL_MS = 1_000;

/**
 * The view's expiry in Redis: a few intervals, so a missed write or two keeps it, and the view of an
 * adapter that died (or lost its lease) disappears within seconds instead of showing its last counts.
 */
export const SESSIONS_VIEW_TTL_MS = 5_000;

/**
 * Redis key of the adapter's sessions view, under the adapter's `STATE_PREFIX`. Persistent: the
 * drain-controller reads this name; renaming it leaves drains without a view (they then wait for
 * their deadline) until both sides agree again.
 */
export const sessionsViewKey = (statePrefix: string): string => `${statePrefix}:sessions-view`;

/**
 * The sessions Node reports on the adapter's runners (heartbeat `session_ids` and O2R events), as the
 * active adapter last saw them: per app and in total. `unreported` counts runners registered at Node
 * whose sessions Node has not reported to this adapter process yet (it just started or took over):
 * until it is 0 the counts may be short, so a reader must not take them as complete.
 */
export const SessionsViewSchema = z
  .strictObject({
    total: z.int().min(0),
    byApp: z.record(AppNameSchema, z.int().min(1)),
    unreported: z.int().min(0),
    observedAt: TimestampSchema,
  })
  .refine((view) => Object.values(view.byApp).reduce((sum, count) => sum + count, 0) === view.total, {
    message: 'total must be the sum of byApp',
    path: ['total'],
  });
export type SessionsView = z.infer<typeof SessionsViewSchema>;
