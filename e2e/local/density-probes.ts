// What the density bench reads of a running stack: instance states, what Node lists, the stack's
// processes (control plane and sandboxes) and the adapter's heartbeat delay histogram.
import { DiscoveryResponseSchema, InstanceListSchema } from '@sandbox/protocol';
import type { StackProcess } from '@sandbox/testing';
import {
  commandLine,
  descendants,
  histogramBuckets,
  listProcesses,
  pidWithEnv,
  pssBytes,
  type HostProcess,
} from './host-processes';

export const DENSITY_APP = 'density';
export const DENSITY_PREFIX = 'edn';

export const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;

/** Instances of the app by state. */
export async function instanceStates(stack: StackProcess): Promise<Map<string, number>> {
  const response = await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/instances?app=${DENSITY_APP}`), {
    headers: await stack.headers('read'),
  });
  const { instances } = InstanceListSchema.parse(await response.json());
  const states = new Map<string, number>();
  for (const instance of instances) states.set(instance.state, (states.get(instance.state) ?? 0) + 1);
  return states;
}

/** Runners of the app in Node's discovery. */
export async function listedRunners(stack: StackProcess): Promise<number> {
  const response = await fetch(url(stack.ports.NODE_SIM_PORT, '/discovery'));
  const entries = DiscoveryResponseSchema.parse(await response.json());
  return entries.flatMap((entry) => entry.runners).filter((runner) => runner.app === DENSITY_APP).length;
}

/** The stack's processes: the control plane by entry point, and the sandboxes below every conmon. */
export function stackProcesses(stack: StackProcess) {
  const all = listProcesses();
  const root = pidWithEnv(all, 'STACK_DATA_DIR', stack.dataDir);
  if (root === undefined) throw new Error('the stack process was not found');
  const tree = descendants(all, root);
  const member = (part: string) => tree.find((process) => commandLine(process.pid).includes(part))?.pid;
  const sandboxes = all
    .filter((process) => process.comm === 'conmon' && commandLine(process.pid).includes(`${DENSITY_PREFIX}-`))
    .flatMap((conmon) => descendants(all, conmon.pid));
  return {
    controlPlane: {
      instance_manager: member('apps/instance-manager/src/main.ts'),
      adapter: member('apps/adapter/src/main.ts'),
      redis: tree.find((process) => process.comm === 'redis-server')?.pid,
    },
    sandboxes,
  };
}

/**
 * The role of one of a sandbox's processes. runsc re-executes itself (comm `exe`) and names its
 * children by argv[0]: `runsc-sandbox` is the sentry (gVisor's kernel), `runsc-gofer` the file proxy;
 * the processes below the sentry are the app's own (systrap stubs). conmon is podman's monitor.
 */
export function sandboxRole(comm: string, argv0: string): 'sentry' | 'gofer' | 'conmon' | 'app' {
  if (comm === 'conmon') return 'conmon';
  if (argv0.endsWith('runsc-sandbox')) return 'sentry';
  if (argv0.endsWith('runsc-gofer')) return 'gofer';
  return 'app';
}

/** PSS of the sandboxes' processes by role, in bytes. */
export function sandboxPss(processes: readonly HostProcess[]): Record<string, number> {
  const sums: Record<string, number> = { sentry: 0, gofer: 0, conmon: 0, app: 0 };
  for (const process of processes) {
    const role = sandboxRole(process.comm, commandLine(process.pid).split(' ')[0] ?? '');
    sums[role] = (sums[role] ?? 0) + pssBytes(process.pid);
  }
  return sums;
}

export async function heartbeatBuckets(stack: StackProcess): Promise<Map<number, number>> {
  const text = await (await fetch(url(stack.ports.ADAPTER_PORT, '/metrics'))).text();
  return histogramBuckets(text, 'adapter_heartbeat_delay_seconds');
}
