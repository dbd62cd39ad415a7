import type { z } from 'zod';

/**
 * A queue and its closed set of job names, each with the zod schema of its payload.
 * Producers and workers in `@sandbox/queue` are typed and validated from this.
 */
export interface QueueDefinition<
  Name extends string = string,
  Jobs extends Record<string, z.ZodType> = Record<string, z.ZodType>,
> {
  /** Persistent: renaming a queue strands its jobs, so it needs a migration. */
  readonly name: Name;
  readonly jobs: Jobs;
}

/** Job names of a queue definition. */
export type JobName<Q extends QueueDefinition> = Extract<keyof Q['jobs'], string>;

/** Parsed payload type of one job of a queue definition. */
export type JobData<Q extends QueueDefinition, N extends JobName<Q>> = z.infer<Q['jobs'][N]>;

/** Declares a queue; `as const` inference keeps the name and job names literal. */
export function defineQueue<const Name extends string, const Jobs extends Record<string, z.ZodType>>(
  name: Name,
  jobs: Jobs,
): QueueDefinition<Name, Jobs> {
  return Object.freeze({ name, jobs: Object.freeze(jobs) });
}
