import type { InstanceSpec } from './instance-spec.schema';
import type { InstanceNames } from './naming';

/** Podman labels the driver sets. Persistent: a restarted driver finds its containers by them. */
export const LABEL = {
  driver: 'sandbox.driver',
  prefix: 'sandbox.prefix',
  instance: 'sandbox.instance',
  address: 'sandbox.address',
  port: 'sandbox.port',
  egress: 'sandbox.egress',
  /** The CPUs and memory the instance requests, counted against the host's capacity. */
  cpus: 'sandbox.cpus',
  memoryMb: 'sandbox.memory-mb',
  metaPrefix: 'sandbox.meta.',
} as const;

const DRIVER_LABEL_VALUE = 'sandbox-local';

/** Everything `podman run` needs for one instance. */
export interface RunArgsInput {
  prefix: string;
  names: InstanceNames;
  spec: InstanceSpec;
  instanceAddress: string;
  netnsPath: string;
  /** Path of the runsc binary, given to podman as the OCI runtime. */
  runtime: string;
  /** Extra runsc flags (`platform=ptrace`, ...); `network=host` is always set. */
  runtimeFlags: readonly string[];
  /** `uid:gid` the app runs as. */
  user: string;
  pidsLimit: number;
  /** Resolvers for egress `internet`; none are configured for egress `none`. */
  dnsServers: readonly string[];
  logMaxSize: string;
}

/** The podman labels of one instance, the caller's labels under `sandbox.meta.`. */
function instanceLabels(input: RunArgsInput): Record<string, string> {
  const meta = Object.entries(input.spec.labels).map(([key, value]) => [`${LABEL.metaPrefix}${key}`, value]);
  return {
    [LABEL.driver]: DRIVER_LABEL_VALUE,
    [LABEL.prefix]: input.prefix,
    [LABEL.instance]: input.names.instanceId,
    [LABEL.address]: input.instanceAddress,
    [LABEL.port]: String(input.spec.port),
    [LABEL.egress]: input.spec.egress,
    [LABEL.cpus]: String(input.spec.resources.cpus),
    [LABEL.memoryMb]: String(input.spec.resources.memoryMb),
    ...Object.fromEntries(meta),
  };
}

/**
 * Arguments of `podman run` for one instance: gVisor as the runtime using the network namespace we
 * prepared (runsc's own sandbox network does not start on this kernel), a read-only root, CPU, memory
 * and pid limits, no capabilities, no IPC namespace (so no /dev/shm from the host), no generated
 * /etc/hosts, no volumes, and only the spec's environment (podman would otherwise copy the proxy
 * variables of the manager's own environment into every container).
 */
export function buildRunArgs(input: RunArgsInput): string[] {
  const { spec, names } = input;
  const memory = `${spec.resources.memoryMb}m`;
  const dns = spec.egress === 'internet' && input.dnsServers.length > 0 ? input.dnsServers : ['none'];
  const labels = Object.entries(instanceLabels(input)).flatMap(([key, value]) => [
    '--label',
    `${key}=${value}`,
  ]);
  const env = Object.entries(spec.env).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
  return [
    'run',
    '--detach',
    '--pull=never',
    `--name=${names.container}`,
    `--runtime=${input.runtime}`,
    '--runtime-flag=network=host',
    ...input.runtimeFlags.map((flag) => `--runtime-flag=${flag}`),
    `--network=ns:${input.netnsPath}`,
    `--hostname=${names.instanceId}`,
    '--read-only',
    `--cpus=${spec.resources.cpus}`,
    `--memory=${memory}`,
    `--memory-swap=${memory}`,
    `--pids-limit=${input.pidsLimit}`,
    '--cap-drop=all',
    '--security-opt=no-new-privileges',
    `--user=${input.user}`,
    '--ipc=none',
    '--no-hosts',
    '--http-proxy=false',
    ...dns.map((server) => `--dns=${server}`),
    '--log-driver=k8s-file',
    `--log-opt=max-size=${input.logMaxSize}`,
    ...labels,
    ...env,
    spec.image,
    ...(spec.args ?? []),
  ];
}
