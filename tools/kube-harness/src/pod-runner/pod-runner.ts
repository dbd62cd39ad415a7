import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import type { SandboxDriver } from '@sandbox/sandbox-local';
import type { Logger } from 'pino';
import { PodWorker, deletePodForGood, type PodWorkerDeps } from './pod-worker';

/** Options of {@link startPodRunner}. */
export interface PodRunnerOptions {
  /** Credentials the runner uses (test infrastructure: the harness admin is fine). */
  kubeConfig: KubeConfig;
  /** A local driver with a prefix and subnet of its own; every instance of that prefix is the runner's. */
  driver: SandboxDriver;
  logger: Logger;
  /** @defaultValue 'kube-harness-node' */
  nodeName?: string;
  /** Namespaces whose unscheduled pods the runner binds to its node, standing in for the scheduler. @defaultValue [] */
  scheduleNamespaces?: string[];
  /** Pause between two passes over the API. @defaultValue 250 */
  pollIntervalMs?: number;
  /** Pause between two looks at the host for containers that exited. @defaultValue 2000 */
  exitCheckIntervalMs?: number;
  /** Pause before retrying a failed start. @defaultValue 2000 */
  retryMs?: number;
  /** @defaultValue () => new Date() */
  now?: () => Date;
}

/** A running pod runner. */
export interface PodRunner {
  readonly nodeName: string;
  /** Stops the loop and removes every instance it started; the pods are left as they are. */
  stop(): Promise<void>;
}

/**
 * Test infrastructure standing in for one node's kubelet (and, for the namespaces named, the
 * scheduler): it binds unscheduled pods to its node, runs the pods bound to it through the local
 * gVisor driver, patches their status (pod IP, conditions, readiness from the probe), and on
 * deletion removes the instance and deletes the pod for good. It polls the API rather than
 * watching, so an API server restart only delays it. Leftovers of its driver prefix are removed at
 * start.
 */
export async function startPodRunner(options: PodRunnerOptions): Promise<PodRunner> {
  const nodeName = options.nodeName ?? 'kube-harness-node';
  const core = options.kubeConfig.makeApiClient(CoreV1Api);
  const logger = options.logger.child({ component: 'pod-runner', node: nodeName });
  for (const leftover of await options.driver.list()) await options.driver.stop(leftover.instanceId);
  const deps: PodWorkerDeps = {
    core,
    driver: options.driver,
    logger,
    now: options.now ?? (() => new Date()),
    retryMs: options.retryMs ?? 2_000,
  };
  const workers = new Map<string, PodWorker>();
  const pass = async (): Promise<void> => {
    for (const namespace of options.scheduleNamespaces ?? [])
      await bindUnscheduled(core, namespace, nodeName);
    const pods = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${nodeName}` });
    await reconcile(pods.items, workers, deps);
  };
  const loops = [
    repeat(pass, options.pollIntervalMs ?? 250, logger),
    repeat(() => checkExits(options.driver, workers), options.exitCheckIntervalMs ?? 2_000, logger),
  ];
  return {
    nodeName,
    stop: async () => {
      await Promise.all(loops.map((loop) => loop.stop()));
      await Promise.all([...workers.values()].map((worker) => worker.terminate(false)));
      workers.clear();
    },
  };
}

/** Tells each worker whose container was running before this look, and is no longer complete, that it exited. */
async function checkExits(driver: SandboxDriver, workers: Map<string, PodWorker>): Promise<void> {
  const running = new Map<string, PodWorker>();
  for (const worker of workers.values()) {
    if (worker.runningInstanceId) running.set(worker.runningInstanceId, worker);
  }
  if (running.size === 0) return;
  const complete = new Set((await driver.list()).filter((i) => i.complete).map((i) => i.instanceId));
  for (const [instanceId, worker] of running) if (!complete.has(instanceId)) await worker.containerExited();
}

async function reconcile(pods: V1Pod[], workers: Map<string, PodWorker>, deps: PodWorkerDeps): Promise<void> {
  const seen = new Set<string>();
  for (const pod of pods) {
    const uid = pod.metadata?.uid;
    if (!uid) continue;
    seen.add(uid);
    const worker = workers.get(uid);
    if (pod.metadata?.deletionTimestamp) {
      workers.delete(uid);
      // Without a worker (its final delete failed before) there is no instance left to remove.
      await (worker ? worker.terminate(true) : deletePodForGood(deps, pod));
    } else if (worker) {
      await worker.observe(pod);
    } else if (pod.status?.phase !== 'Failed' && pod.status?.phase !== 'Succeeded') {
      // A finished pod is not started again, as a kubelet would not after its own restart.
      workers.set(uid, new PodWorker(deps, pod));
    }
  }
  // Gone from the API without passing through deletion here (force-deleted): remove its instance.
  for (const [uid, worker] of workers) {
    if (seen.has(uid)) continue;
    workers.delete(uid);
    await worker.terminate(false);
  }
}

async function bindUnscheduled(core: CoreV1Api, namespace: string, nodeName: string): Promise<void> {
  const pods = await core.listNamespacedPod({ namespace, fieldSelector: 'spec.nodeName=' });
  for (const pod of pods.items) {
    const name = pod.metadata?.name;
    if (!name || pod.metadata?.deletionTimestamp) continue;
    await core.createNamespacedPodBinding({
      name,
      namespace,
      body: { metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } },
    });
  }
}

/** Runs `step` again `intervalMs` after each run ends; errors are logged and the loop goes on. */
function repeat(step: () => Promise<void>, intervalMs: number, logger: Logger): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const run = (): void => {
    current = step()
      .catch((error: unknown) => logger.warn({ err: error }, 'pod runner pass failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(run, intervalMs);
      });
  };
  run();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
