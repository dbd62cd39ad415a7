import type { StartFailure } from '@sandbox/protocol';
import type { InstanceRecord } from '../store/instance-record';

/**
 * The app's latest instance that ended without ever being ready (the host had no capacity left, the
 * image did not start, the health check timed out), unless an instance became ready after it: what the
 * app's status shows so an operator sees why nothing runs.
 */
export function lastStartFailure(app: string, records: readonly InstanceRecord[]): StartFailure | undefined {
  const mine = records.filter((record) => record.app === app);
  let failed: InstanceRecord | undefined;
  for (const record of mine) {
    if (record.outcome !== 'failed' || record.readyAt !== undefined || record.goneAt === undefined) continue;
    if (!failed || record.goneAt > (failed.goneAt ?? 0)) failed = record;
  }
  const failedAt = failed?.goneAt;
  if (!failed || failedAt === undefined) return undefined;
  if (mine.some((record) => (record.readyAt ?? 0) > failedAt)) return undefined;
  return {
    instanceId: failed.id,
    reason: failed.reason ?? 'instance failed to start',
    at: new Date(failedAt).toISOString(),
  };
}
