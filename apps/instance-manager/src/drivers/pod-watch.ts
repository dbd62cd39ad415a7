import type { V1Pod } from '@kubernetes/client-node';
import { isPodReady, podIdentity, podInstanceUrl, podRuntimeState } from '@sandbox/kube';
import type { ResilientInformer } from '@sandbox/kube';
import type { Clock } from '@sandbox/service-kit';
import type { InstanceRef } from './runtime-driver';
import { InstanceNotReadyError } from './runtime-driver';

type Waiter = (pod: V1Pod, deleted: boolean) => void;

/** The instance's URL once its pod is Ready, an error once it can never be, else undefined. */
function readiness(pod: V1Pod, deleted: boolean, port: number): { url: string } | Error | undefined {
  if (deleted || podRuntimeState(pod) === 'failed') return new InstanceNotReadyError('exited');
  const url = isPodReady(pod) ? podInstanceUrl(pod, port) : undefined;
  return url ? { url } : undefined;
}

/**
 * The pod informer's events by instance: waits for an instance's pod to become Ready (each event of
 * its pod is checked; nothing polls), and tells listeners which instance's pod was added, changed or
 * deleted so the manager can reconcile that one instance.
 */
export function createPodWatch(deps: { informer: ResilientInformer<V1Pod>; clock: Pick<Clock, 'sleep'> }) {
  const waiters = new Map<string, Set<Waiter>>();
  const listeners: ((instance: InstanceRef) => void)[] = [];

  const dispatch = (pod: V1Pod, deleted: boolean) => {
    const { instanceId, app } = podIdentity(pod);
    if (instanceId === undefined) return;
    for (const waiter of [...(waiters.get(instanceId) ?? [])]) waiter(pod, deleted);
    for (const listener of listeners) listener({ instanceId, ...(app === undefined ? {} : { app }) });
  };
  deps.informer.on('add', (pod) => dispatch(pod, false));
  deps.informer.on('update', (pod) => dispatch(pod, false));
  deps.informer.on('delete', (pod) => dispatch(pod, true));

  return {
    onInstanceChange(listener: (instance: InstanceRef) => void): void {
      listeners.push(listener);
    },
    /**
     * Resolves with the URL once the instance's pod is Ready; rejects with {@link InstanceNotReadyError}
     * when the pod ends or is deleted first, or after `timeoutMs`. `current` is the cached pod, if any.
     */
    waitForReady(
      instanceId: string,
      current: V1Pod | undefined,
      port: number,
      timeoutMs: number,
    ): Promise<{ url: string }> {
      return new Promise((resolve, reject) => {
        const deadline = new AbortController();
        let done = false;
        const finish = (outcome: { url: string } | Error) => {
          if (done) return;
          done = true;
          waiters.get(instanceId)?.delete(waiter);
          if (waiters.get(instanceId)?.size === 0) waiters.delete(instanceId);
          deadline.abort();
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        };
        const waiter: Waiter = (pod, deleted) => {
          const outcome = readiness(pod, deleted, port);
          if (outcome) finish(outcome);
        };
        waiters.set(instanceId, (waiters.get(instanceId) ?? new Set()).add(waiter));
        if (current) waiter(current, false);
        if (done) return;
        void deps.clock
          .sleep(timeoutMs, deadline.signal)
          .then(() => finish(new InstanceNotReadyError('timeout')));
      });
    },
  };
}
