import { z } from 'zod';

/** Injected faults of the redeemer API, changeable at run time through `PUT /sim/faults`. */
export const FaultsSchema = z.strictObject({
  latencyMs: z.int().min(0).max(600_000),
  failureRate: z.number().min(0).max(1),
  lostAckRate: z.number().min(0).max(1),
  outage: z.enum(['none', 'unavailable', 'hang']),
});
export type Faults = z.infer<typeof FaultsSchema>;

/** The faults in force and the randomness that draws them. */
export interface FaultState {
  current: Faults;
  readonly random: () => number;
}
