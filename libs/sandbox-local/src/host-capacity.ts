import { availableParallelism, totalmem } from 'node:os';
import type { ContainerSummary } from './podman';
import { LABEL } from './podman-args';

/** CPUs and memory, as the host has them or as instances request them. */
export interface Resources {
  cpus: number;
  memoryMb: number;
}

/** The host has not enough CPU or memory left for the instance; nothing was created. */
export class InstanceCapacityError extends Error {
  override readonly name = 'InstanceCapacityError';
  constructor(
    readonly requested: Resources,
    readonly left: Resources,
  ) {
    const round = (value: number) => Math.round(value * 100) / 100;
    super(
      `the host has not enough capacity left: the instance requests ${round(requested.cpus)} CPUs and ` +
        `${requested.memoryMb} MiB, ${round(Math.max(0, left.cpus))} CPUs and ` +
        `${Math.max(0, left.memoryMb)} MiB are left`,
    );
  }
}

/** The host's CPUs and memory. */
export function hostResources(): Resources {
  return { cpus: availableParallelism(), memoryMb: Math.floor(totalmem() / 2 ** 20) };
}

/** What the driver's containers request, from their labels; containers that ended hold nothing. */
export function requestedBy(containers: readonly ContainerSummary[]): Resources {
  let cpus = 0;
  let memoryMb = 0;
  for (const container of containers) {
    if (container.state === 'exited' || container.state === 'stopped') continue;
    cpus += Number(container.labels[LABEL.cpus] ?? 0) || 0;
    memoryMb += Number(container.labels[LABEL.memoryMb] ?? 0) || 0;
  }
  return { cpus, memoryMb };
}

/**
 * Admits instances while their requests fit in what the host has left (its capacity minus what the
 * driver's containers and the starts in flight request), so the host is never overcommitted silently.
 * Admissions are serialized: two starts never both take the last free CPU.
 *
 * Listing the containers costs a `podman ps` (tens to hundreds of ms), so a request is first checked
 * against the last listing plus every start admitted since (released or not): that overcounts (stopped
 * and exited containers still count) but never undercounts the driver's own containers, so what fits
 * there fits. Only a request that does not fit lists the containers again and is decided on the fresh
 * count, so nothing is refused on a stale one.
 */
export function createCapacityGate(capacity: Resources, listContainers: () => Promise<ContainerSummary[]>) {
  const pending = new Map<string, Resources>();
  let listed: { used: Resources; admittedSince: Map<string, Resources> } | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const leftAfter = (used: Resources, extra: Iterable<Resources>): Resources => {
    const left = { cpus: capacity.cpus - used.cpus, memoryMb: capacity.memoryMb - used.memoryMb };
    for (const other of extra) {
      left.cpus -= other.cpus;
      left.memoryMb -= other.memoryMb;
    }
    return left;
  };
  // A small tolerance, so 0.1 + 0.2 CPUs fit in 0.3.
  const fits = (requested: Resources, left: Resources) =>
    requested.cpus <= left.cpus + 1e-9 && requested.memoryMb <= left.memoryMb;

  async function admitNow(instanceId: string, requested: Resources): Promise<() => void> {
    if (!listed || !fits(requested, leftAfter(listed.used, listed.admittedSince.values()))) {
      // Starts in flight now may have no container yet: they stay counted until the next listing.
      listed = { used: requestedBy(await listContainers()), admittedSince: new Map(pending) };
      const left = leftAfter(listed.used, pending.values());
      if (!fits(requested, left)) throw new InstanceCapacityError(requested, left);
    }
    pending.set(instanceId, requested);
    listed.admittedSince.set(instanceId, requested);
    return () => pending.delete(instanceId);
  }

  return {
    /** Reserves the request until the returned release is called (once the container exists or failed). */
    admit(instanceId: string, requested: Resources): Promise<() => void> {
      const admitted = queue.then(() => admitNow(instanceId, requested));
      queue = admitted.catch(() => undefined);
      return admitted;
    },
  };
}
