import type { V1NetworkPolicy } from '@kubernetes/client-node';
import { KUBE_LABELS, networkPolicyDrifted } from '@sandbox/kube';
import type { KubeApi, ResilientInformer } from '@sandbox/kube';
import type { Logger } from 'pino';
import type { Clock } from '@sandbox/service-kit';

/** Dependencies of {@link createNetworkPolicyKeeper}. */
export interface NetworkPolicyKeeperDeps {
  api: KubeApi;
  /** NetworkPolicies of the apps namespace with our managed-by label. */
  informer: ResilientInformer<V1NetworkPolicy>;
  clock: Pick<Clock, 'now' | 'sleep'>;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Delay before retrying an app whose policy could not be written. @defaultValue 1000 */
  retryMs?: number;
}

/**
 * Keeps each app's NetworkPolicy as we built it. Informer events (a policy deleted or edited by anyone)
 * enqueue the app's key; a worker applies the desired policy again for each key whose policy drifted,
 * one at a time, retrying failures. So a deleted or altered policy is back within the watch's latency.
 */
export function createNetworkPolicyKeeper(deps: NetworkPolicyKeeperDeps) {
  const desired = new Map<string, V1NetworkPolicy>();
  const queue = new Set<string>();
  let working: Promise<void> | undefined;
  let closed = false;

  const appOf = (policy: V1NetworkPolicy) => policy.metadata?.labels?.[KUBE_LABELS.app];
  const current = (name: string | undefined) => deps.informer.list().find((p) => p.metadata?.name === name);

  async function reconcile(app: string): Promise<void> {
    const policy = desired.get(app);
    if (!policy || !networkPolicyDrifted(current(policy.metadata?.name), policy)) return;
    deps.logger.warn(
      { app, policy: policy.metadata?.name },
      'app NetworkPolicy missing or altered; re-applying',
    );
    await deps.api.applyNetworkPolicy(policy);
  }

  async function drain(): Promise<void> {
    try {
      while (queue.size > 0 && !closed) {
        const [app] = queue;
        if (app === undefined) break;
        queue.delete(app);
        try {
          await reconcile(app);
        } catch (error) {
          deps.logger.error({ app, err: error }, 're-applying the app NetworkPolicy failed; retrying');
          await deps.clock.sleep(deps.retryMs ?? 1_000);
          queue.add(app);
        }
      }
    } finally {
      // In the turn the loop saw the queue empty, so a key enqueued later always starts a new drain.
      working = undefined;
    }
  }

  function enqueue(app: string | undefined): void {
    if (app === undefined || !desired.has(app) || closed) return;
    queue.add(app);
    working ??= drain();
  }

  for (const verb of ['update', 'delete'] as const)
    deps.informer.on(verb, (policy) => enqueue(appOf(policy)));

  return {
    /** Applies the app's policy unless the cluster already holds exactly it; remembers it as desired. */
    async ensure(app: string, policy: V1NetworkPolicy): Promise<void> {
      desired.set(app, policy);
      if (networkPolicyDrifted(current(policy.metadata?.name), policy))
        await deps.api.applyNetworkPolicy(policy);
    },
    /** Forgets the app (its policy is being deleted on purpose). */
    forget(app: string): void {
      desired.delete(app);
      queue.delete(app);
    },
    async close(): Promise<void> {
      closed = true;
      await working;
    },
  };
}
