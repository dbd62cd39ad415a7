import { z } from 'zod';
import { defineRoute } from './route';

/** `/healthz` of every service (service-kit's liveness probe), with the version of the running code. */
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

/** The probes every service serves; `service` is filled in per call. */
export function probeRoutes(service: string) {
  return {
    liveness: defineRoute({
      service,
      operationId: 'liveness',
      method: 'GET',
      path: '/healthz',
      success: [200],
      response: LivenessSchema,
    }),
    // 503 carries the same report: it says which check failed.
    readiness: defineRoute({
      service,
      operationId: 'readiness',
      method: 'GET',
      path: '/readyz',
      success: [200, 503],
      response: ReadinessReportSchema,
    }),
  } as const;
}
