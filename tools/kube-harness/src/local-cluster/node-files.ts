import { join } from 'node:path';
import { CLUSTER_NETWORK, RUNSC_HANDLER, type ClusterPaths } from './cluster-layout';

const quote = (value: string): string => JSON.stringify(value);

/**
 * containerd 2's configuration (version 3): every path under the node directory, no TCP listener and
 * no metrics port, gVisor's shim as the `runsc` handler and the default runtime (runc cannot start
 * containers on a host that refuses every setrlimit), network namespaces under its state directory,
 * the pause image pinned, and the `opt` and NRI plugins off so nothing is written to /opt or
 * /var/run/nri.
 */
export function containerdConfig(paths: ClusterPaths, pauseImage: string, shimPath: string): string {
  const runtime = `plugins.'io.containerd.cri.v1.runtime'`;
  const handler = `${runtime}.containerd.runtimes.${RUNSC_HANDLER}`;
  return [
    'version = 3',
    `root = ${quote(paths.containerdRoot)}`,
    `state = ${quote(paths.containerdState)}`,
    `disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.nri.v1.nri"]`,
    '[grpc]',
    `  address = ${quote(paths.containerdSocket)}`,
    '[ttrpc]',
    `  address = ${quote(`${paths.containerdSocket}.ttrpc`)}`,
    '[debug]',
    '  address = ""',
    '[metrics]',
    '  address = ""',
    `[plugins.'io.containerd.grpc.v1.cri']`,
    '  disable_tcp_service = true',
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    `[${runtime}]`,
    // The pod sandbox asks for oom_score_adj -998, which needs CAP_SYS_RESOURCE; without the clamp
    // runsc fails and RunPodSandbox hangs instead of returning an error.
    '  restrict_oom_score_adj = true',
    '  netns_mounts_under_state_dir = true',
    `[${runtime}.containerd]`,
    `  default_runtime_name = ${quote(RUNSC_HANDLER)}`,
    `[${handler}]`,
    '  runtime_type = "io.containerd.runsc.v1"',
    `  runtime_path = ${quote(shimPath)}`,
    `[${handler}.options]`,
    '  TypeUrl = "io.containerd.runsc.v1.options"',
    `  ConfigPath = ${quote(paths.runscConfig)}`,
    `[${runtime}.cni]`,
    '  bin_dirs = ["/usr/lib/cni"]',
    `  conf_dir = ${quote(paths.cniConfDir)}`,
    `[plugins.'io.containerd.cri.v1.images']`,
    '  snapshotter = "overlayfs"',
    `[plugins.'io.containerd.cri.v1.images'.pinned_images]`,
    `  sandbox = ${quote(pauseImage)}`,
    '',
  ].join('\n');
}

/** The gVisor shim's options file: the pinned systrap runsc, its state root and log. */
export function runscConfig(paths: ClusterPaths, runscPath: string): string {
  return [
    `binary_name = ${quote(runscPath)}`,
    `root = ${quote(paths.runscRoot)}`,
    `log_path = ${quote(join(paths.logs, 'runsc-shim.log'))}`,
    '[runsc_config]',
    '  platform = "systrap"',
    '',
  ].join('\n');
}

/**
 * The pod network: Debian's bridge plugin (gateway on the bridge, hairpin, no masquerade),
 * host-local addresses from the pod range with two routes, to the Service range and to the stand-in
 * for the outside (no default route: nothing leaves the machine), and portmap for hostPorts.
 */
export function cniConfList(paths: ClusterPaths): string {
  const config = {
    cniVersion: '1.0.0',
    name: 'sandbox-cluster',
    plugins: [
      {
        type: 'bridge',
        bridge: CLUSTER_NETWORK.bridge,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [
            [
              {
                subnet: CLUSTER_NETWORK.podCidr,
                gateway: CLUSTER_NETWORK.bridgeIp,
                rangeEnd: CLUSTER_NETWORK.podRangeEnd,
              },
            ],
          ],
          routes: [
            { dst: CLUSTER_NETWORK.serviceCidr },
            { dst: CLUSTER_NETWORK.outside.cidr, gw: CLUSTER_NETWORK.outside.gateway },
          ],
          dataDir: paths.cniDataDir,
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** Files the kubelet reads (certificates, its kubeconfig). */
export interface KubeletFiles {
  caCert: string;
  servingCert: string;
  servingKey: string;
}

/** The kubelet's configuration file (JSON is YAML). */
export function kubeletConfig(paths: ClusterPaths, files: KubeletFiles): string {
  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    // cgroup v1 on this host; a release that drops v1 will not run here.
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    // gVisor enforces pod limits through the pod cgroup: keep the QoS hierarchy.
    cgroupsPerQOS: true,
    failSwapOn: false,
    address: CLUSTER_NETWORK.bridgeIp,
    port: CLUSTER_NETWORK.kubeletPort,
    readOnlyPort: 0,
    healthzPort: 0,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: files.caCert },
    },
    authorization: { mode: 'Webhook' },
    tlsCertFile: files.servingCert,
    tlsPrivateKeyFile: files.servingKey,
    clusterDNS: [CLUSTER_NETWORK.dnsIp],
    clusterDomain: CLUSTER_NETWORK.clusterDomain,
    resolvConf: paths.resolvConf,
    // Imported images have no registry to come back from: never collect them.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: {
      'memory.available': '50Mi',
      'nodefs.available': '1%',
      'imagefs.available': '1%',
      'nodefs.inodesFree': '1%',
    },
    podLogsDir: paths.podLogs,
    containerRuntimeEndpoint: `unix://${paths.containerdSocket}`,
    serializeImagePulls: false,
    rotateCertificates: false,
    serverTLSBootstrap: false,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** kube-proxy's configuration: iptables mode, leaving the host's sysctls and OOM score alone. */
export function kubeProxyConfig(kubeconfig: string, nodeName: string): string {
  const config = {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clientConnection: { kubeconfig },
    hostnameOverride: nodeName,
    bindAddress: CLUSTER_NETWORK.bridgeIp,
    healthzBindAddress: '127.0.0.1:10256',
    metricsBindAddress: '127.0.0.1:10249',
    oomScoreAdj: 0,
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
      udpTimeout: '0s',
      udpStreamTimeout: '0s',
    },
    iptables: { localhostNodePorts: false },
    nodePortAddresses: [CLUSTER_NETWORK.podCidr],
    clusterCIDR: CLUSTER_NETWORK.podCidr,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
