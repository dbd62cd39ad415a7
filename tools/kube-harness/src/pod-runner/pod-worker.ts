import { PatchStrategy, setHeaderOptions, type CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import type { SandboxDriver, StartedInstance } from '@sandbox/sandbox-local';
import type { Logger } from 'pino';
import { planPod, type PodPlan } from './pod-plan';
import { podStatus, type ObservedPod } from './pod-status';
import { probeOnce, readinessTracker } from './probe';

/** What a pod worker needs; shared by every worker of one runner. */
export interface PodWorkerDeps {
  core: CoreV1Api;
  driver: SandboxDriver;
  logger: Logger;
  now: () => Date;
  /** Pause before retrying a failed start. */
  retryMs: number;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Deletes a pod with grace 0 (what a kubelet does once its containers are gone), for this uid only. */
export async function deletePodForGood(
  deps: Pick<PodWorkerDeps, 'core' | 'logger'>,
  pod: V1Pod,
): Promise<void> {
  const name = pod.metadata?.name ?? '';
  const namespace = pod.metadata?.namespace ?? '';
  const preconditions = { uid: pod.metadata?.uid };
  await deps.core
    .deleteNamespacedPod({
      name,
      namespace,
      gracePeriodSeconds: 0,
      body: { gracePeriodSeconds: 0, preconditions },
    })
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, pod: `${namespace}/${name}` }, 'final pod delete failed'),
    );
}

/**
 * The runner's handle on one pod bound to its node. It runs the pod through the local driver as a
 * kubelet would: starts its container, reports `Running` with the pod IP, probes readiness on the
 * pod's own schedule, reports every change, and removes the instance when the pod goes.
 */
export class PodWorker {
  private pod: V1Pod;
  private readonly name: string;
  private readonly namespace: string;
  private readonly logger: Logger;
  private plan: PodPlan | undefined;
  private instance: StartedInstance | undefined;
  private observed: ObservedPod | undefined;
  private statusDirty = false;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private restartCount = 0;
  private starting: Promise<void>;

  constructor(
    private readonly deps: PodWorkerDeps,
    pod: V1Pod,
  ) {
    this.pod = pod;
    this.name = pod.metadata?.name ?? '';
    this.namespace = pod.metadata?.namespace ?? '';
    this.logger = deps.logger.child({ pod: `${this.namespace}/${this.name}` });
    this.starting = this.start();
  }

  /** The local-driver instance id, once the pod could be planned. */
  get instanceId(): string | undefined {
    return this.plan?.spec.instanceId;
  }

  /** The instance id while its container runs (started and not yet seen to exit). */
  get runningInstanceId(): string | undefined {
    return this.observed?.phase === 'Running' ? this.instance?.instanceId : undefined;
  }

  /** Hands the worker the pod as last listed, and re-sends a status patch that failed before. */
  async observe(latest: V1Pod): Promise<void> {
    this.pod = latest;
    if (this.statusDirty && this.observed && !this.stopping) await this.publish(this.observed);
  }

  /** The container is gone from the host: the pod fails, or restarts under `restartPolicy: Always`. */
  async containerExited(): Promise<void> {
    await this.starting;
    const { instance, observed } = this;
    if (this.stopping || !instance || observed?.phase !== 'Running') return;
    clearTimeout(this.timer);
    const finishedAt = this.deps.now();
    this.instance = undefined;
    await this.deps.driver.stop(instance.instanceId);
    if (this.pod.spec?.restartPolicy === 'Always') {
      this.restartCount += 1;
      this.starting = this.start();
      return;
    }
    const state = { terminated: { exitCode: 1, reason: 'Error', finishedAt } };
    await this.publish({ ...this.base(), phase: 'Failed', ready: false, state });
  }

  /** Stops probing, removes the instance and, when asked, deletes the pod for good (grace 0). */
  async terminate(deletePod: boolean): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.starting;
    if (this.plan) await this.deps.driver.stop(this.plan.spec.instanceId);
    if (deletePod) await deletePodForGood(this.deps, this.pod);
  }

  private async start(): Promise<void> {
    try {
      this.plan = planPod(this.pod);
    } catch (error) {
      const message = messageOf(error);
      const state = { terminated: { exitCode: 128, reason: 'Unsupported', message } };
      return this.publish({
        ...this.base(),
        phase: 'Failed',
        ready: false,
        state,
        reason: 'Unsupported',
        message,
      });
    }
    try {
      this.instance = await this.deps.driver.start(this.plan.spec);
    } catch (error) {
      this.logger.warn({ err: error }, 'pod start failed; retrying');
      const state = { waiting: { reason: 'CreateContainerError', message: messageOf(error) } };
      await this.publish({ ...this.base(), phase: 'Pending', ready: false, state });
      return this.schedule(this.deps.retryMs, () => (this.starting = this.start()));
    }
    if (this.stopping) return;
    const startedAt = this.deps.now();
    const ready = this.plan.readiness === undefined;
    const podIP = this.instance.address;
    await this.publish({
      ...this.base(),
      phase: 'Running',
      podIP,
      startedAt,
      ready,
      state: { running: { startedAt } },
    });
    this.probeLoop();
  }

  private probeLoop(): void {
    const readiness = this.plan?.readiness;
    const started = this.instance;
    if (!readiness || !started) return;
    const tracker = readinessTracker(readiness);
    const step = async (): Promise<void> => {
      const ready = tracker.record(await probeOnce(started.address, readiness));
      if (this.stopping || this.instance !== started) return;
      if (this.observed && ready !== this.observed.ready) await this.publish({ ...this.observed, ready });
      this.schedule(readiness.periodMs, step);
    };
    this.schedule(readiness.initialDelayMs, step);
  }

  private async publish(next: ObservedPod): Promise<void> {
    this.observed = next;
    this.statusDirty = true;
    try {
      const status = podStatus(this.pod.status, next, this.deps.now());
      const body = { status };
      this.pod = await this.deps.core.patchNamespacedPodStatus(
        { name: this.name, namespace: this.namespace, body },
        MERGE_PATCH,
      );
      this.statusDirty = false;
    } catch (error) {
      this.logger.warn({ err: error }, 'pod status patch failed; retrying on the next pass');
    }
  }

  private schedule(delayMs: number, step: () => unknown): void {
    clearTimeout(this.timer);
    if (!this.stopping) this.timer = setTimeout(() => void step(), delayMs);
  }

  private base(): Pick<ObservedPod, 'containerName' | 'image' | 'restartCount'> {
    const container = this.pod.spec?.containers[0];
    return {
      containerName: this.plan?.containerName ?? container?.name ?? '',
      image: container?.image ?? '',
      restartCount: this.restartCount,
    };
  }
}
