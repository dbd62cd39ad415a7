import { KubeConfig } from '@kubernetes/client-node';
import type { HarnessPki } from '../pki/pki';
import { ADMIN_USER, pemData } from '../pki/pki';

/** How a kubeconfig authenticates: the admin client certificate, or a bearer token. */
export type KubeCredentials =
  { kind: 'admin'; pki: HarnessPki } | { kind: 'token'; user: string; token: string; caData: string };

const CLUSTER = 'kube-harness';

/** A KubeConfig for the harness's API server with one cluster, one user and one context. */
export async function harnessKubeConfig(
  server: string,
  credentials: KubeCredentials,
  namespace?: string,
): Promise<KubeConfig> {
  const caData = credentials.kind === 'admin' ? await pemData(credentials.pki.caCert) : credentials.caData;
  const user =
    credentials.kind === 'admin'
      ? {
          name: ADMIN_USER,
          certData: await pemData(credentials.pki.adminCert),
          keyData: await pemData(credentials.pki.adminKey),
        }
      : { name: credentials.user, token: credentials.token };
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: CLUSTER, server, caData, skipTLSVerify: false }],
    users: [user],
    contexts: [{ name: user.name, cluster: CLUSTER, user: user.name, ...(namespace ? { namespace } : {}) }],
    currentContext: user.name,
  });
  return kc;
}

/**
 * The same cluster and credentials with `Impersonate-User` set, the way `kubectl --as` works. The
 * API server adds the service-account groups itself when the name is a service account's.
 */
export function impersonating(admin: KubeConfig, user: string): KubeConfig {
  const current = admin.getCurrentUser();
  const cluster = admin.getCurrentCluster();
  if (!current || !cluster) throw new Error('admin kubeconfig has no current user or cluster');
  const kc = new KubeConfig();
  const name = `as-${user}`;
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ ...current, name, impersonateUser: user }],
    contexts: [{ name, cluster: cluster.name, user: name }],
    currentContext: name,
  });
  return kc;
}
