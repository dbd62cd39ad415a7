import { coalescedCheckpoint, fencedCheckpoint } from '@sandbox/lease';
import type { LeaseElector } from '@sandbox/lease';
import type { RunnerClient } from '@sandbox/node-client';

/**
 * The client with each call to Node preceded by a checkpoint through the lease's fence: Node is
 * outside Redis, so the call itself cannot be fenced, but a replica that lost the lease is refused
 * (`StaleLeaseError`, `NotLeaseHolderError`) before it sends anything, and the act list shows which
 * token spoke to Node when. Heartbeats (one per runner per interval) share one proof per retry period;
 * each is still checked against the local holding.
 */
export function fenceNodeCalls(client: RunnerClient, lease: LeaseElector, now: () => number): RunnerClient {
  const checkpoint = (act: string) => fencedCheckpoint(lease, act, now);
  const heartbeatCheckpoint = coalescedCheckpoint(lease, 'heartbeat', { wallClock: now });
  return {
    async heartbeat(call) {
      await heartbeatCheckpoint();
      return client.heartbeat(call);
    },
    async unregister(call) {
      await checkpoint('unregister');
      return client.unregister(call);
    },
    async stopSession(call) {
      await checkpoint('stop-session');
      return client.stopSession(call);
    },
  };
}
