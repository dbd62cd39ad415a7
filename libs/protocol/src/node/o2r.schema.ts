import { z } from 'zod';
import { RouteIdSchema, Rfc3339NanoSchema } from './primitives.schema';

/** O2R keepalive, published every 10 s for every registered runner. */
export const O2RKeepAliveSchema = z.strictObject({ keep: z.literal('alive') });

export type O2RKeepAlive = z.infer<typeof O2RKeepAliveSchema>;

/** Session lifecycle events Node publishes on a runner's O2R channel. */
export const O2RSessionEventNameSchema = z.enum(['reserved', 'released']);

export type O2RSessionEventName = z.infer<typeof O2RSessionEventNameSchema>;

/**
 * `reserved`: a free reservation was created (including the transient session behind each single-shot
 * request) or a paid one was activated. `released`: on every teardown path. `timestamp` is UTC
 * RFC 3339 with nanoseconds (Go `time.RFC3339Nano`).
 */
export const O2RSessionEventSchema = z.object({
  event: O2RSessionEventNameSchema,
  session: RouteIdSchema,
  timestamp: Rfc3339NanoSchema,
});

export type O2RSessionEvent = z.infer<typeof O2RSessionEventSchema>;

/** One O2R trickle segment: a keepalive or a session event. */
export const O2RMessageSchema = z.union([O2RKeepAliveSchema, O2RSessionEventSchema]);

export type O2RMessage = z.infer<typeof O2RMessageSchema>;

/** Narrows an O2R message to a session event. */
export function isO2RSessionEvent(message: O2RMessage): message is O2RSessionEvent {
  return 'event' in message;
}
