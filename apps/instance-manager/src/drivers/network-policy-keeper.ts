import type { V1NetworkPolicy } from '@kubernetes/client-node';
import { KUBE_LABELS, createWorkQueue, networkPolicyApplyBody, networkPolicyDrifted } from '@sandbox/kube';
import type { KubeApi, ResilientInformer } from '@sandbox/kube';
import type { Schedule } from '@sandbox/service-kit';
import type { Logger } from 'pino';

/** Dependencies of {@link createNetworkPolicyKeeper}. */
export interface NetworkPolicyKeeperDeps {
  api: KubeApi;
  /** NetworkPolicies of the apps namespace with our managed-by label. */
  informer: ResilientInformer<V1NetworkPolicy>;
  namespace: string;
  /** The policy the app should have now (built from its spec and the current node addresses), if any. */
  desiredPolicy: (app: string) => V1NetworkPolicy | undefined;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Delay before the first retry of an app whose policy could not be written. @defaultValue 500 */
  retryMs?: number;
  /** Timers of the retries. @defaultValue setTimeout */
  schedule?: Schedule;
}

/**
 * Keeps each app's NetworkPolicy as we built it. Informer events (a policy deleted or edited by anyone)
 * queue the app; the work queue reconciles each app at most once at a time: when the cached policy
 * drifted from the desired one, a forced server-side apply takes every field back. Failures retry with
 * backoff. So a deleted or altered policy is back within the watch's latency, with no periodic pass.
 */
export function createNetworkPolicyKeeper(deps: NetworkPolicyKeeperDeps) {
  const apps = new Set<string>();
  const cached = (policy: V1NetworkPolicy) => deps.informer.get(policy.metadata?.name ?? '', deps.namespace);

  /** Level-based: compares the desired policy with the cached one; applies only on a difference. */
  async function reconcile(app: string, cause: 'ensure' | 'event'): Promise<void> {
    const policy = apps.has(app) ? deps.desiredPolicy(app) : undefined;
    const actual = policy && cached(policy);
    if (!policy || !networkPolicyDrifted(actual, policy)) return;
    if (cause === 'event')
      deps.logger.warn(
        { app, policy: policy.metadata?.name },
        'app NetworkPolicy missing or altered; re-applying',
      );
    await deps.api.applyNetworkPolicy(networkPolicyApplyBody(policy, actual));
  }

  const queue = createWorkQueue({
    reconcile: (app) => reconcile(app, 'event'),
    logger: deps.logger,
    name: 'app-network-policies',
    ...(deps.retryMs === undefined ? {} : { initialRetryMs: deps.retryMs }),
    ...(deps.schedule ? { schedule: deps.schedule } : {}),
  });

  const enqueue = (policy: V1NetworkPolicy) => {
    const app = policy.metadata?.labels?.[KUBE_LABELS.app];
    if (app !== undefined && apps.has(app)) queue.add(app);
  };
  for (const verb of ['update', 'delete'] as const) deps.informer.on(verb, enqueue);

  return {
    /** Keeps the app's policy from now on; applies it now (errors to the caller) unless the cache has it. */
    async ensure(app: string): Promise<void> {
      apps.add(app);
      await reconcile(app, 'ensure');
    },
    /** Queues every app (an input of every policy changed, such as the node addresses). */
    requeueAll(): void {
      for (const app of apps) queue.add(app);
    },
    /** Forgets the app (its policy is being deleted on purpose). */
    forget(app: string): void {
      apps.delete(app);
      queue.forget(app);
    },
    idle: () => queue.idle(),
    close: () => queue.close(),
  };
}
