import { z } from 'zod';

/**
 * Name of an app (`PUT /v1/apps/{app}`), the `app` we register with Node. A lowercase DNS label of at
 * most 40 characters starting with a letter: it becomes part of instance ids, pod names, labels and
 * NetworkPolicy names, which must stay DNS labels of at most 63 characters once a suffix is added.
 */
export const AppNameSchema = z.string().regex(/^[a-z](?:[a-z0-9-]{0,38}[a-z0-9])?$/, {
  message: "must be 1-40 characters of a-z, 0-9 and '-', starting with a letter and not ending with '-'",
});
export type AppName = z.infer<typeof AppNameSchema>;

/**
 * Id of one instance, chosen by instance-manager. A lowercase DNS label (at most 63 characters), so the
 * runner id derived from it also fits Node's stricter rule for single-shot hostname proxies.
 * instance-manager mints them narrower still (`newInstanceId`, `MintedInstanceIdSchema` in
 * instance-id.ts), the format the local driver names its host objects by.
 */
export const InstanceIdSchema = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
  message: "must be 1-63 characters of a-z, 0-9 and '-', not starting or ending with '-'",
});
export type InstanceId = z.infer<typeof InstanceIdSchema>;

const opaqueId = /^[A-Za-z0-9_-]{1,128}$/;
const opaqueIdMessage = "must be 1-128 characters of A-Z, a-z, 0-9, '-' and '_'";

/** Node's runner id rule: ASCII letters, digits, `-` and `_`, 1 to 128 bytes. */
export const RunnerIdSchema = z.string().regex(opaqueId, { message: opaqueIdMessage });
export type RunnerId = z.infer<typeof RunnerIdSchema>;

/** A session id as Node reports it (O2R events, heartbeat `session_ids`); it also appears in URL paths. */
export const SessionIdSchema = z.string().regex(opaqueId, { message: opaqueIdMessage });
export type SessionId = z.infer<typeof SessionIdSchema>;

/** Id of one drain operation, chosen by drain-controller. */
export const DrainIdSchema = z.string().regex(opaqueId, { message: opaqueIdMessage });
export type DrainId = z.infer<typeof DrainIdSchema>;

/** Id of one evaluation run, chosen by the verifier. */
export const EvaluationIdSchema = z.string().regex(opaqueId, { message: opaqueIdMessage });
export type EvaluationId = z.infer<typeof EvaluationIdSchema>;
