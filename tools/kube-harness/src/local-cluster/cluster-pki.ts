import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand, type CommandRunner } from '@sandbox/sandbox-local';
import { ADMIN_USER } from '../pki/pki';
import { CLUSTER_NETWORK } from './cluster-layout';

/** A certificate and its key. */
export interface CertPair {
  cert: string;
  key: string;
}

/** The cluster's throwaway PKI: one CA, serving and client certificates, the token key pair. */
export interface ClusterPki {
  caCert: string;
  caKey: string;
  apiserver: CertPair;
  /** The API server's client certificate towards kubelets (logs, exec). */
  apiserverKubeletClient: CertPair;
  kubeletServing: CertPair;
  /** `system:node:<node>` in `system:nodes`, what NodeRestriction expects. */
  kubeletClient: CertPair;
  admin: CertPair;
  controllerManager: CertPair;
  scheduler: CertPair;
  kubeProxy: CertPair;
  kubeRouter: CertPair;
  serviceAccountKey: string;
  serviceAccountPublicKey: string;
}

/** The user kube-router's policy controller authenticates as (bound to its own ClusterRole). */
export const KUBE_ROUTER_USER = 'sandbox:kube-router';

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
const DAYS = ['-days', '2'];

/** The API server's names: the bridge address pods use, the first Service IP and loopback. */
export function apiServerSans(): string {
  const names = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'localhost'];
  names.push(`kubernetes.default.svc.${CLUSTER_NETWORK.clusterDomain}`);
  const ips = [CLUSTER_NETWORK.bridgeIp, CLUSTER_NETWORK.apiServiceIp, '127.0.0.1'];
  return [...ips.map((ip) => `IP:${ip}`), ...names.map((name) => `DNS:${name}`)].join(',');
}

/** Creates every certificate of the cluster with the `openssl` CLI, under `dir`. */
export async function createClusterPki(
  dir: string,
  nodeName: string,
  run: CommandRunner = runCommand,
): Promise<ClusterPki> {
  await mkdir(dir, { recursive: true });
  const pair = (name: string): CertPair => ({
    cert: join(dir, `${name}.crt`),
    key: join(dir, `${name}.key`),
  });
  const caCert = join(dir, 'ca.crt');
  const caKey = join(dir, 'ca.key');
  await run('openssl', [
    ...['req', '-x509', ...EC_KEY, ...DAYS, '-keyout', caKey, '-out', caCert],
    ...['-subj', '/CN=sandbox-cluster-ca', '-addext', 'basicConstraints=critical,CA:TRUE'],
    ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  ]);
  const issue = async (name: string, subject: string, extensions: string[]): Promise<CertPair> => {
    const files = pair(name);
    await run('openssl', [
      ...['req', '-x509', ...EC_KEY, ...DAYS, '-keyout', files.key, '-out', files.cert, '-subj', subject],
      ...['-CA', caCert, '-CAkey', caKey, '-addext', 'basicConstraints=critical,CA:FALSE'],
      ...extensions.flatMap((extension) => ['-addext', extension]),
    ]);
    return files;
  };
  const client = (name: string, subject: string): Promise<CertPair> =>
    issue(name, subject, ['extendedKeyUsage=clientAuth']);
  const tokenKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serviceAccountKey = join(dir, 'sa.key');
  const serviceAccountPublicKey = join(dir, 'sa.pub');
  await writeFile(serviceAccountKey, tokenKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
  });
  await writeFile(serviceAccountPublicKey, tokenKeys.publicKey.export({ type: 'spki', format: 'pem' }));
  return {
    caCert,
    caKey,
    apiserver: await issue('apiserver', '/CN=kube-apiserver', [
      `subjectAltName=${apiServerSans()}`,
      'extendedKeyUsage=serverAuth',
    ]),
    apiserverKubeletClient: await client(
      'apiserver-kubelet-client',
      '/O=system:masters/CN=kube-apiserver-kubelet-client',
    ),
    kubeletServing: await issue('kubelet-serving', `/CN=${nodeName}`, [
      `subjectAltName=IP:${CLUSTER_NETWORK.bridgeIp},DNS:${nodeName}`,
      'extendedKeyUsage=serverAuth',
    ]),
    kubeletClient: await client('kubelet', `/O=system:nodes/CN=system:node:${nodeName}`),
    admin: await client('admin', `/O=system:masters/CN=${ADMIN_USER}`),
    controllerManager: await client('controller-manager', '/CN=system:kube-controller-manager'),
    scheduler: await client('scheduler', '/CN=system:kube-scheduler'),
    kubeProxy: await client('kube-proxy', '/CN=system:kube-proxy'),
    kubeRouter: await client('kube-router', `/CN=${KUBE_ROUTER_USER}`),
    serviceAccountKey,
    serviceAccountPublicKey,
  };
}

/** A kubeconfig file (JSON is YAML) naming certificate files, for one component. */
export async function writeKubeconfig(
  path: string,
  server: string,
  caCert: string,
  user: CertPair,
): Promise<void> {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'sandbox-cluster', cluster: { server, 'certificate-authority': caCert } }],
    users: [{ name: 'user', user: { 'client-certificate': user.cert, 'client-key': user.key } }],
    contexts: [{ name: 'sandbox-cluster', context: { cluster: 'sandbox-cluster', user: 'user' } }],
    'current-context': 'sandbox-cluster',
  };
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}
