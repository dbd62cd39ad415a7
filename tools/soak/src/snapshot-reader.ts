import { readFileSync } from 'node:fs';
import { adapterRoutes, drainControllerRoutes, instanceManagerRoutes } from '@sandbox/protocol';
import type { SupervisedMember } from './stack-api';
import { callRoute } from './route-client';
import type { SystemSnapshot } from './system-snapshot';

/** Where the soak reads the system. */
export interface SnapshotSources {
  instanceManagerUrl: string;
  adapterUrl: string;
  drainControllerUrl: string;
  /** The Node simulator's metrics listener (`livepeer_runners`). */
  nodeMetricsUrl: string;
  readTokenFile: string;
  members: ReadonlyMap<string, SupervisedMember>;
}

/** Undefined when the source does not answer (a member down is what the soak expects to see). */
const orUndefined = <T>(promise: Promise<T>): Promise<T | undefined> => promise.catch(() => undefined);

async function nodeRunners(metricsUrl: string): Promise<number | undefined> {
  const response = await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(2_000) });
  const match = /^livepeer_runners (\d+)$/m.exec(await response.text());
  return match ? Number(match[1]) : undefined;
}

async function unreadyMembers(members: ReadonlyMap<string, SupervisedMember>): Promise<string[]> {
  const checks = [...members].map(async ([name, member]) =>
    (await member.spec.isReady().catch(() => false)) ? [] : [name],
  );
  return (await Promise.all(checks)).flat();
}

/** Reads one snapshot: every source at once, each allowed to fail. */
export async function readSnapshot(sources: SnapshotSources): Promise<SystemSnapshot> {
  const token = readFileSync(sources.readTokenFile, 'utf8').trim();
  const atMs = Date.now();
  const [instances, runners, drains, runnersAtNode, unready] = await Promise.all([
    orUndefined(
      callRoute(sources.instanceManagerUrl, token, instanceManagerRoutes.listInstances, { query: {} }),
    ),
    orUndefined(callRoute(sources.adapterUrl, token, adapterRoutes.listRunners, { query: {} })),
    orUndefined(callRoute(sources.drainControllerUrl, token, drainControllerRoutes.listDrains, {})),
    orUndefined(nodeRunners(sources.nodeMetricsUrl)),
    unreadyMembers(sources.members),
  ]);
  return {
    atMs,
    ...(instances === undefined ? {} : { instances: instances.instances }),
    ...(runners === undefined ? {} : { registrations: runners.runners, drainMode: runners.drain.mode }),
    ...(runnersAtNode === undefined ? {} : { nodeRunners: runnersAtNode }),
    ...(drains === undefined
      ? {}
      : {
          drains: drains.drains.map((d) => ({
            id: d.id,
            phase: d.phase,
            deadlineMs: Date.parse(d.deadline),
          })),
        }),
    unreadyMembers: unready,
  };
}
