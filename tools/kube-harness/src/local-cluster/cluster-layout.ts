import { join } from 'node:path';

/**
 * The cluster's fixed addresses and names. They are k3s's defaults, so the project's k3d overlay
 * (which grants Node the pod range) works unchanged. Fixed names are also what lets a later run
 * find and remove the leftovers of a crashed one: there is one such cluster per host.
 */
export const CLUSTER_NETWORK = {
  podCidr: '10.42.0.0/24',
  bridgeIp: '10.42.0.1',
  serviceCidr: '10.43.0.0/16',
  /** The first Service address: the `kubernetes` Service. */
  apiServiceIp: '10.43.0.1',
  dnsIp: '10.43.0.10',
  clusterDomain: 'cluster.local',
  bridge: 'sbxc0',
  apiPort: 6443,
  kubeletPort: 10250,
  /** Pods get addresses up to here; the top of the range is left for hosts a test plugs into the bridge. */
  podRangeEnd: '10.42.0.239',
  /**
   * What stands for the internet here, where nothing may leave the machine: pods route this one
   * public address through `gateway`, a host a test plugs into the bridge, so the packets never leave
   * the bridge (the node has no default route for pods and does not forward). It must be public:
   * the apps' egress policies refuse documentation and other non-public ranges, as they should.
   * Without such a host the route leads nowhere.
   */
  outside: { cidr: '100.128.0.10/32', gateway: '10.42.0.250' },
} as const;

/** The node's name, as the kubelet registers it. */
export const CLUSTER_NODE_NAME = 'sandbox-node';

/** The node's scratch directory: every file of the cluster lives here. */
export const CLUSTER_DIR = '/tmp/sandbox-cluster';

/** The CRI runtime handler (the project's RuntimeClass `gvisor` names it) and default runtime. */
export const RUNSC_HANDLER = 'runsc';

/** Paths inside the node directory. */
export interface ClusterPaths {
  dir: string;
  pki: string;
  etcdData: string;
  logs: string;
  podLogs: string;
  kubeletRoot: string;
  containerdRoot: string;
  containerdState: string;
  containerdConfig: string;
  containerdSocket: string;
  runscRoot: string;
  runscConfig: string;
  cniConfDir: string;
  cniDataDir: string;
  kubeletConfig: string;
  kubeProxyConfig: string;
  resolvConf: string;
  images: string;
  /** Free for tests: hostPath volumes, scratch files. */
  volumes: string;
}

export function clusterPaths(dir: string = CLUSTER_DIR): ClusterPaths {
  return {
    dir,
    pki: join(dir, 'pki'),
    etcdData: join(dir, 'etcd'),
    logs: join(dir, 'logs'),
    podLogs: join(dir, 'pod-logs'),
    kubeletRoot: join(dir, 'kubelet'),
    containerdRoot: join(dir, 'containerd', 'root'),
    containerdState: join(dir, 'containerd', 'state'),
    containerdConfig: join(dir, 'containerd', 'config.toml'),
    containerdSocket: join(dir, 'containerd', 'containerd.sock'),
    runscRoot: join(dir, 'runsc'),
    runscConfig: join(dir, 'containerd', 'runsc.toml'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    cniDataDir: join(dir, 'cni', 'ipam'),
    kubeletConfig: join(dir, 'kubelet-config.json'),
    kubeProxyConfig: join(dir, 'kube-proxy-config.json'),
    resolvConf: join(dir, 'resolv.conf'),
    images: join(dir, 'images'),
    volumes: join(dir, 'volumes'),
  };
}
