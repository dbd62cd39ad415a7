/**
 * Labels on every object instance-manager creates in the apps namespace. Persistent: a restarted
 * manager finds its pods by them, and NetworkPolicies select pods by them.
 */
export const KUBE_LABELS = Object.freeze({
  managedBy: 'app.kubernetes.io/managed-by',
  app: 'sandbox-runtime/app',
  instance: 'sandbox-runtime/instance',
  /** `reusable` or `single-session`. */
  kind: 'sandbox-runtime/kind',
  /** Hash of the spec fields the instance was built from. */
  template: 'sandbox-runtime/template',
});

/** Value of {@link KUBE_LABELS.managedBy} on our objects. Persistent. */
export const MANAGED_BY = 'sandbox-instance-manager';

/** Label selector matching every instance pod we manage. */
export const MANAGED_POD_SELECTOR = `${KUBE_LABELS.managedBy}=${MANAGED_BY}`;

/** Name of an instance's pod: `<app>-<instanceId>` (app ≤ 40 and id ≤ 21 characters keep it a DNS label). */
export function instancePodName(app: string, instanceId: string): string {
  return `${app}-${instanceId}`;
}

/** Name of an app's NetworkPolicy. */
export function appNetworkPolicyName(app: string): string {
  return `sandbox-app-${app}`;
}
