import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import type { HarnessPki } from '../pki/pki';
import { waitUntilHealthy } from './etcd';
import { spawnGuarded, type GuardedProcess } from './guarded-process';

/** The issuer of service-account tokens, as in a default cluster. */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/**
 * The admission plugins the project relies on, all on by default in current releases and named here
 * so that a future default change cannot silently drop one: ServiceAccount (injects the token
 * volume our policy must reject), RuntimeClass (refuses unknown classes), PodSecurity, and
 * ValidatingAdmissionPolicy (our CEL policy for the apps namespace).
 */
export const ADMISSION_PLUGINS = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'RuntimeClass',
  'PodSecurity',
  'ResourceQuota',
  'ValidatingAdmissionPolicy',
] as const;

/** Options of {@link startApiServer}. */
export interface StartApiServerOptions {
  binary: string;
  dir: string;
  pki: HarnessPki;
  etcdUrl: string;
  port: number;
  /** @defaultValue 90000 */
  startTimeoutMs?: number;
}

/** The flags kube-apiserver runs with (exported so unit tests can check them). */
export function apiServerArgs(options: Omit<StartApiServerOptions, 'binary' | 'startTimeoutMs'>): string[] {
  const { pki } = options;
  return [
    ...['--etcd-servers', options.etcdUrl, '--bind-address', '127.0.0.1', '--advertise-address', '127.0.0.1'],
    ...['--secure-port', String(options.port), '--cert-dir', join(options.dir, 'apiserver-certs')],
    ...['--tls-cert-file', pki.servingCert, '--tls-private-key-file', pki.servingKey],
    ...['--client-ca-file', pki.caCert, '--anonymous-auth=false', '--authorization-mode', 'Node,RBAC'],
    ...['--service-account-issuer', SERVICE_ACCOUNT_ISSUER],
    ...['--service-account-key-file', pki.serviceAccountPublicKey],
    ...['--service-account-signing-key-file', pki.serviceAccountKey],
    ...['--enable-admission-plugins', ADMISSION_PLUGINS.join(',')],
    // Without these the API server itself would reject privileged and host-namespace pods before
    // admission, and our policy would never be exercised on them (k3s runs with the same setting).
    '--allow-privileged=true',
    // Allocation only: nothing routes to this range on the test host.
    ...['--service-cluster-ip-range', '10.43.0.0/16'],
    // The `kubernetes` Endpoints would name 127.0.0.1, which endpoint validation refuses.
    ...['--endpoint-reconciler-type', 'none', '--profiling=false'],
  ];
}

/** GET /readyz as the admin; true on 200. */
export async function apiServerReady(url: string, pki: HarnessPki, timeoutMs = 2_000): Promise<boolean> {
  const [ca, cert, key] = await Promise.all(
    [pki.caCert, pki.adminCert, pki.adminKey].map((p) => readFile(p)),
  );
  return new Promise((resolve) => {
    const req = request(`${url}/readyz`, { ca, cert, key, timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Starts kube-apiserver on 127.0.0.1 and waits until `/readyz` (bootstrap RBAC included) is ok. */
export async function startApiServer(options: StartApiServerOptions): Promise<GuardedProcess> {
  const url = `https://127.0.0.1:${options.port}`;
  const process = spawnGuarded({
    executable: options.binary,
    args: apiServerArgs(options),
    cwd: options.dir,
    logFile: join(options.dir, 'kube-apiserver.log'),
    orphanDir: options.dir,
  });
  await waitUntilHealthy(
    'kube-apiserver',
    process,
    () => apiServerReady(url, options.pki),
    options.startTimeoutMs ?? 90_000,
  );
  return process;
}
