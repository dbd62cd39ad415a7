import { join } from 'node:path';

/** Where one local node keeps everything it creates: all of it lives under `dir`. */
export interface NodeLayout {
  /** The node's temporary directory (containerd root and state, sockets, CNI data, logs). */
  dir: string;
  /** containerd's gRPC socket: the CRI endpoint of the kubelet and crictl. */
  socket: string;
  /** The Linux bridge the pods' veths join; at most 15 characters. */
  bridge: string;
  /** The pods' subnet, e.g. `10.230.7.0/24`. */
  podSubnet: string;
  /** The runsc binary the gVisor shim starts. */
  runscPath: string;
  /** The pod sandbox image, already imported by the time a pod starts. */
  pauseImage: string;
}

/** The name of the containerd runtime handler, and of the RuntimeClass that selects it. */
export const GVISOR_HANDLER = 'gvisor';

/** containerd's file layout for a node rooted at `dir`. */
export function nodeLayoutPaths(dir: string): {
  socket: string;
  config: string;
  cniConfDir: string;
  cniDataDir: string;
  runscRoot: string;
} {
  return {
    socket: join(dir, 'containerd.sock'),
    config: join(dir, 'containerd.toml'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    cniDataDir: join(dir, 'cni', 'ipam'),
    runscRoot: join(dir, 'runsc'),
  };
}

const quote = (value: string): string => JSON.stringify(value);

/**
 * containerd's runtime type for the `gvisor` handler: its own runc v2 shim, driving runsc as the OCI
 * runtime binary. gVisor's shim (`io.containerd.runsc.v1`) cannot start on a host that withholds
 * CAP_SYS_RESOURCE: it sets its own `oom_score_adj` to -999 and treats the refusal as fatal.
 */
export const GVISOR_RUNTIME_TYPE = 'io.containerd.runc.v2';

/**
 * containerd 1.6's configuration (version 2): every path under the node's directory, no TCP
 * listener, the CRI plugin with gVisor as the only runtime (also the default, since runc cannot
 * start containers where every setrlimit is refused) and network namespaces under its own state
 * directory, so tear-down finds them all.
 */
export function containerdConfig(layout: NodeLayout): string {
  const paths = nodeLayoutPaths(layout.dir);
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  const runtime = `${cri}.containerd.runtimes.${GVISOR_HANDLER}`;
  return [
    'version = 2',
    `root = ${quote(join(layout.dir, 'root'))}`,
    `state = ${quote(join(layout.dir, 'state'))}`,
    '[grpc]',
    `  address = ${quote(layout.socket)}`,
    '[ttrpc]',
    `  address = ${quote(`${layout.socket}.ttrpc`)}`,
    '[metrics]',
    '  address = ""',
    `[${cri}]`,
    `  sandbox_image = ${quote(layout.pauseImage)}`,
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    '  netns_mounts_under_state_dir = true',
    // The pod sandbox asks for oom_score_adj -998; lowering it needs CAP_SYS_RESOURCE, which this
    // host withholds. Clamp every container's value to containerd's own instead.
    '  restrict_oom_score_adj = true',
    `[${cri}.containerd]`,
    `  default_runtime_name = ${quote(GVISOR_HANDLER)}`,
    '  snapshotter = "overlayfs"',
    `[${runtime}]`,
    `  runtime_type = ${quote(GVISOR_RUNTIME_TYPE)}`,
    `[${runtime}.options]`,
    `  BinaryName = ${quote(layout.runscPath)}`,
    `  Root = ${quote(paths.runscRoot)}`,
    `[${cri}.cni]`,
    '  bin_dir = "/usr/lib/cni"',
    `  conf_dir = ${quote(paths.cniConfDir)}`,
    '',
  ].join('\n');
}

/**
 * The pods' CNI network: Debian's bridge plugin on the node's own bridge with host-local addresses
 * from its subnet (containerd adds the pod's loopback itself). No masquerade and no port mappings, so the plugins add no iptables
 * rule: pods reach each other and the host, nothing beyond.
 */
export function cniConfList(layout: NodeLayout): string {
  const paths = nodeLayoutPaths(layout.dir);
  return `${JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: layout.bridge,
      plugins: [
        {
          type: 'bridge',
          bridge: layout.bridge,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: { type: 'host-local', ranges: [[{ subnet: layout.podSubnet }]], dataDir: paths.cniDataDir },
        },
      ],
    },
    null,
    2,
  )}\n`;
}
