import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { LeaseConfigError } from './lease-errors';

/** How long a lease lives, when its holder gives up, how often it is tried (Kubernetes' leader election). */
export interface LeaseTimings {
  /** The lease's TTL in Redis: how long a dead holder blocks a takeover. */
  ttlMs: number;
  /** A holder whose last successful renewal is older than this stops acting; `< ttlMs`. */
  renewDeadlineMs: number;
  /** Time between renewals (holder) and acquisition attempts (standby); `< renewDeadlineMs`. */
  retryPeriodMs: number;
}

/** @defaultValue 15 s TTL, 10 s renew deadline, 2 s retry period */
export const DEFAULT_LEASE_TIMINGS: Readonly<LeaseTimings> = Object.freeze({
  ttlMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
});

const ms = (fallback: number) => z.coerce.number().int().min(10).max(600_000).default(fallback);

/**
 * The env fields of a service that runs one active replica, spread into its schema
 * (`baseEnvSchema(...).extend({ ...leaseEnvFields(), ... })`):
 *
 * - `LEASE_TTL_MS`, `LEASE_RENEW_DEADLINE_MS`, `LEASE_RETRY_PERIOD_MS` (see {@link LeaseTimings});
 * - `LEASE_HOLDER_ID`: this replica's name in the lease (the pod's name); @defaultValue host, pid, random
 */
export function leaseEnvFields() {
  return {
    LEASE_TTL_MS: ms(DEFAULT_LEASE_TIMINGS.ttlMs),
    LEASE_RENEW_DEADLINE_MS: ms(DEFAULT_LEASE_TIMINGS.renewDeadlineMs),
    LEASE_RETRY_PERIOD_MS: ms(DEFAULT_LEASE_TIMINGS.retryPeriodMs),
    LEASE_HOLDER_ID: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,100}$/)
      .optional(),
  };
}

/** The parsed lease fields of a service's config. */
export interface LeaseEnv {
  LEASE_TTL_MS: number;
  LEASE_RENEW_DEADLINE_MS: number;
  LEASE_RETRY_PERIOD_MS: number;
  LEASE_HOLDER_ID?: string | undefined;
}

/** Checks the timings' order (retry < renew deadline < TTL); throws {@link LeaseConfigError}. */
export function checkLeaseTimings(timings: LeaseTimings): LeaseTimings {
  if (timings.renewDeadlineMs >= timings.ttlMs)
    throw new LeaseConfigError('LEASE_RENEW_DEADLINE_MS must be shorter than LEASE_TTL_MS');
  if (timings.retryPeriodMs >= timings.renewDeadlineMs)
    throw new LeaseConfigError('LEASE_RETRY_PERIOD_MS must be shorter than LEASE_RENEW_DEADLINE_MS');
  return timings;
}

/** The timings and holder id of a service's config (timings checked). */
export function leaseSettings(env: LeaseEnv): { timings: LeaseTimings; holderId: string } {
  return {
    timings: checkLeaseTimings({
      ttlMs: env.LEASE_TTL_MS,
      renewDeadlineMs: env.LEASE_RENEW_DEADLINE_MS,
      retryPeriodMs: env.LEASE_RETRY_PERIOD_MS,
    }),
    holderId: env.LEASE_HOLDER_ID ?? defaultHolderId(),
  };
}

/** Host name, pid and a random suffix: unique even for two replicas of one host or one pod name. */
export function defaultHolderId(): string {
  const host = hostname()
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 60);
  return `${host}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
