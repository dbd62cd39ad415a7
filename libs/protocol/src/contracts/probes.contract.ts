import { z } from 'zod';
import { defineRoute, type ServiceName } from './route-contract';

/** `/healthz` of every service (the kit's liveness probe), with the version of the running code. */
export const LivenessSchema = z.strictObject({
  status: z.literal('ok'),
  /** Absent from services that predate it. */
  version: z.string().optional(),
});

/** `/readyz` of every service: the lifecycle state and each named dependency check. */
export const ReadinessReportSchema = z.strictObject({
  status: z.enum(['starting', 'ready', 'stopping', 'not_ready', 'standby']),
  checks: z.array(z.strictObject({ name: z.string(), status: z.enum(['pass', 'fail', 'timeout']) })),
});
export type ReadinessReport = z.infer<typeof ReadinessReportSchema>;

/** The probes every service serves (the kit's, open to anyone; not part of the API documents). */
export function probeRoutes(service: ServiceName) {
  return {
    liveness: defineRoute({
      service,
      operationId: 'liveness',
      summary: 'Liveness and version',
      method: 'GET',
      path: '/healthz',
      success: [200],
      response: LivenessSchema,
      errors: [],
      role: 'open',
    }),
    // 503 carries the same report: it says which check failed.
    readiness: defineRoute({
      service,
      operationId: 'readiness',
      summary: 'Readiness, with each check',
      method: 'GET',
      path: '/readyz',
      success: [200, 503],
      response: ReadinessReportSchema,
      errors: [],
      role: 'open',
    }),
  } as const;
}
