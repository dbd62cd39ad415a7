import { join } from 'node:path';
import { ADMISSION_PLUGINS, SERVICE_ACCOUNT_ISSUER } from '../control-plane/apiserver';
import { CLUSTER_NETWORK, type ClusterPaths } from './cluster-layout';
import type { ClusterPki } from './cluster-pki';

/** The component kubeconfig files under the node directory. */
export function kubeconfigPaths(
  paths: ClusterPaths,
): Record<'admin' | 'kubelet' | 'controllerManager' | 'scheduler' | 'kubeProxy' | 'kubeRouter', string> {
  const file = (name: string): string => join(paths.dir, 'kubeconfigs', `${name}.kubeconfig`);
  return {
    admin: file('admin'),
    kubelet: file('kubelet'),
    controllerManager: file('controller-manager'),
    scheduler: file('scheduler'),
    kubeProxy: file('kube-proxy'),
    kubeRouter: file('kube-router'),
  };
}

/** etcd: one member on loopback, plain HTTP, no fsync (throwaway data). */
export function etcdArgs(paths: ClusterPaths, clientPort: number, peerPort: number): string[] {
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    ...['--name', 'sandbox-cluster', '--data-dir', paths.etcdData],
    ...['--listen-client-urls', url, '--advertise-client-urls', url],
    ...['--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer],
    ...['--initial-cluster', `sandbox-cluster=${peer}`, '--initial-cluster-state', 'new'],
    ...['--unsafe-no-fsync', '--log-level', 'warn'],
  ];
}

/**
 * kube-apiserver on the bridge address (in-cluster clients reach it through the `kubernetes`
 * Service, whose endpoint the default reconciler publishes), NodeRestriction on top of the
 * harness's admission plugins, and a client certificate towards the kubelet.
 */
export function apiServerArgs(paths: ClusterPaths, pki: ClusterPki, etcdUrl: string): string[] {
  const { bridgeIp, apiPort, serviceCidr } = CLUSTER_NETWORK;
  return [
    ...['--etcd-servers', etcdUrl, '--bind-address', bridgeIp, '--advertise-address', bridgeIp],
    ...['--secure-port', String(apiPort), '--cert-dir', join(paths.dir, 'apiserver-certs')],
    ...['--tls-cert-file', pki.apiserver.cert, '--tls-private-key-file', pki.apiserver.key],
    ...['--client-ca-file', pki.caCert, '--anonymous-auth=false', '--authorization-mode', 'Node,RBAC'],
    ...['--service-account-issuer', SERVICE_ACCOUNT_ISSUER],
    ...['--service-account-key-file', pki.serviceAccountPublicKey],
    ...['--service-account-signing-key-file', pki.serviceAccountKey],
    ...['--enable-admission-plugins', [...ADMISSION_PLUGINS, 'NodeRestriction'].join(',')],
    ...['--kubelet-client-certificate', pki.apiserverKubeletClient.cert],
    ...['--kubelet-client-key', pki.apiserverKubeletClient.key],
    ...['--kubelet-certificate-authority', pki.caCert],
    ...['--kubelet-preferred-address-types', 'InternalIP'],
    '--allow-privileged=true',
    ...['--service-cluster-ip-range', serviceCidr, '--profiling=false'],
  ];
}

/** kube-controller-manager: node CIDR = the bridge range, one identity per controller, no ports. */
export function controllerManagerArgs(pki: ClusterPki, kubeconfig: string): string[] {
  return [
    ...['--kubeconfig', kubeconfig, '--leader-elect=false', '--secure-port', '0'],
    ...['--service-account-private-key-file', pki.serviceAccountKey, '--root-ca-file', pki.caCert],
    ...['--cluster-signing-cert-file', pki.caCert, '--cluster-signing-key-file', pki.caKey],
    ...['--allocate-node-cidrs', '--cluster-cidr', CLUSTER_NETWORK.podCidr, '--node-cidr-mask-size', '24'],
    ...['--service-cluster-ip-range', CLUSTER_NETWORK.serviceCidr],
    '--use-service-account-credentials',
    '--profiling=false',
  ];
}

/** kube-scheduler without serving ports. */
export function schedulerArgs(kubeconfig: string): string[] {
  return ['--kubeconfig', kubeconfig, '--leader-elect=false', '--secure-port', '0', '--profiling=false'];
}

/** The kubelet: registers as `nodeName` with the bridge address, state under the node directory. */
export function kubeletArgs(paths: ClusterPaths, kubeconfig: string, nodeName: string): string[] {
  return [
    ...['--config', paths.kubeletConfig, '--kubeconfig', kubeconfig],
    ...['--node-ip', CLUSTER_NETWORK.bridgeIp, '--hostname-override', nodeName],
    ...['--root-dir', paths.kubeletRoot, '--cert-dir', join(paths.kubeletRoot, 'pki')],
  ];
}

/**
 * kube-router as a NetworkPolicy controller only: no routing, no service proxy, no CNI, no pod
 * egress masquerade, no metrics or health port.
 */
export function kubeRouterArgs(kubeconfig: string, nodeName: string): string[] {
  return [
    ...['--kubeconfig', kubeconfig, '--hostname-override', nodeName],
    '--run-firewall=true',
    '--run-router=false',
    '--run-service-proxy=false',
    '--enable-cni=false',
    '--enable-pod-egress=false',
    '--enable-ipv6=false',
    ...['--service-cluster-ip-range', CLUSTER_NETWORK.serviceCidr],
    ...['--health-port', '0', '--metrics-port', '0'],
  ];
}
