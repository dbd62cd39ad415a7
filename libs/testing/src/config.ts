/**
 * This process's whole environment, for a child that must see what a shell would see (PATH for podman,
 * ip and python, HOME for caches, REDIS_URL and the like), as when it is run by hand.
 */
export function parentEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).flatMap(([key, value]) => (value === undefined ? [] : [[key, value]])),
  );
}

/** Rounds of a two-replica lease spec: `LEASE_ROUNDS`, else 25 (the lease bench raises it). */
export function leaseSpecRounds(): number {
  return Number(process.env['LEASE_ROUNDS'] ?? '25');
}

/** Where lease specs append their runs for the lease bench (`LEASE_REPORT_FILE`), if anywhere. */
export function leaseReportFile(): string | undefined {
  return process.env['LEASE_REPORT_FILE'];
}

/**
 * Whether every suite must run (`SANDBOX_TESTS_REQUIRE_ALL=true`, set by `.ci/run`): then a suite
 * missing root or a tool fails instead of skipping.
 */
export function requireAllTests(): boolean {
  return process.env['SANDBOX_TESTS_REQUIRE_ALL'] === 'true';
}
