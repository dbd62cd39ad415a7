import { AuthorizationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { harnessKubeConfig } from './kubeconfig';

/** The username the API server gives a service account's tokens. */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The groups every token of that service account carries. */
export function serviceAccountGroups(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'];
}

/**
 * Obtains a bound token for a service account through the TokenRequest API (signed by the harness's
 * service-account key) and returns a KubeConfig that authenticates with it, as a pod would.
 * @param expirationSeconds - @defaultValue 3600 (the API's minimum is 600)
 */
export async function serviceAccountKubeConfig(
  admin: KubeConfig,
  namespace: string,
  name: string,
  expirationSeconds = 3_600,
): Promise<KubeConfig> {
  const cluster = admin.getCurrentCluster();
  if (!cluster?.caData) throw new Error('admin kubeconfig has no cluster CA data');
  const core = admin.makeApiClient(CoreV1Api);
  const answer = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds } },
  });
  const token = answer.status?.token;
  if (!token) throw new Error(`no token issued for ${namespace}/${name}`);
  return harnessKubeConfig(
    cluster.server,
    { kind: 'token', user: serviceAccountUser(namespace, name), token, caData: cluster.caData },
    namespace,
  );
}

/** One access question for {@link canI}: a resource request, or a non-resource URL. */
export interface AccessQuestion {
  verb: string;
  resource?: string;
  group?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  nonResourceURL?: string;
}

/**
 * Asks the API server, by SubjectAccessReview as the admin, whether a service account may do
 * something. This is the authorizer's own answer (RBAC here), not a guess from reading roles.
 */
export async function canI(
  admin: KubeConfig,
  account: { namespace: string; name: string },
  question: AccessQuestion,
): Promise<boolean> {
  const api = admin.makeApiClient(AuthorizationV1Api);
  const review = await api.createSubjectAccessReview({
    body: {
      spec: {
        user: serviceAccountUser(account.namespace, account.name),
        groups: serviceAccountGroups(account.namespace),
        ...(question.nonResourceURL
          ? { nonResourceAttributes: { verb: question.verb, path: question.nonResourceURL } }
          : {
              resourceAttributes: {
                verb: question.verb,
                resource: question.resource,
                group: question.group ?? '',
                ...(question.namespace ? { namespace: question.namespace } : {}),
                ...(question.name ? { name: question.name } : {}),
                ...(question.subresource ? { subresource: question.subresource } : {}),
              },
            }),
      },
    },
  });
  return review.status?.allowed === true;
}
