import type { CommandRunner } from './command-runner';
import { CommandError } from './command-runner';
import type { EgressPolicy } from './firewall-rules';
import type { InstanceNames } from './naming';
import type { SlotAddressing } from './subnet';

/** An IPv4 address configured on a host interface. */
export interface HostAddress {
  interface: string;
  address: string;
  prefixLength: number;
}

interface IpAddrJson {
  ifname?: string;
  addr_info?: { family?: string; local?: string; prefixlen?: number }[];
}

/** Path of a named network namespace, as `ip netns add` creates it. */
export function netnsPath(name: string): string {
  return `/run/netns/${name}`;
}

/** Network namespaces, veth pairs and sysctls, through `ip` and `sysctl`. */
export interface HostNetwork {
  /** Creates the namespace; fails if it exists, which makes the namespace the instance's lock. */
  addNamespace(names: InstanceNames): Promise<void>;
  /** Creates and addresses the veth pair, IPv6 off on both ends, routes per egress policy. */
  wire(names: InstanceNames, addressing: SlotAddressing, egress: EgressPolicy): Promise<void>;
  /** Deletes the veth pair and the namespace; missing ones are fine. */
  remove(names: InstanceNames): Promise<void>;
  listNamespaces(): Promise<string[]>;
  listVeths(): Promise<string[]>;
  listAddresses(): Promise<HostAddress[]>;
  /** The interface of the host's IPv4 default route, if any. */
  defaultRouteInterface(): Promise<string | undefined>;
  /** Current values of the given sysctl keys; keys that do not exist (a removed veth) are left out. */
  readSysctls(keys: readonly string[]): Promise<Map<string, string>>;
  /** Sets sysctl keys to the given values. */
  writeSysctls(values: ReadonlyMap<string, string>): Promise<void>;
}

function ignoreMissing(result: { exitCode: number; stderr: string }, command: string, args: string[]): void {
  const missing = /Cannot find device|No such file or directory|does not exist/i;
  if (result.exitCode !== 0 && !missing.test(result.stderr))
    throw new CommandError(command, args, result.exitCode, result.stderr);
}

/** The real {@link HostNetwork} on top of a {@link CommandRunner}. */
export function createHostNetwork(run: CommandRunner): HostNetwork {
  const ip = (args: string[], input?: string) => run('ip', args, input === undefined ? {} : { input });
  const sysctl = (settings: string[]) => run('sysctl', ['-q', '-w', ...settings]);
  return {
    async addNamespace(names) {
      await ip(['netns', 'add', names.netns]);
    },
    async wire(names, addressing, egress) {
      const host = names.hostVeth;
      await ip([
        'link',
        'add',
        host,
        'type',
        'veth',
        'peer',
        'name',
        names.instanceVeth,
        'netns',
        names.netns,
      ]);
      // The two ends are set up side by side (each is a few process spawns, slow on a loaded host);
      // on each, IPv6 goes off before the link comes up, so it never gets a link-local address.
      const hostEnd = async () => {
        await sysctl([
          `net.ipv6.conf.${host}.disable_ipv6=1`,
          `net.ipv4.conf.${host}.forwarding=${egress === 'internet' ? 1 : 0}`,
        ]);
        await ip(
          ['-batch', '-'],
          `address add ${addressing.hostAddress}/${addressing.prefixLength} dev ${host}\nlink set ${host} up\n`,
        );
      };
      const instanceEnd = async () => {
        await run('ip', [
          'netns',
          'exec',
          names.netns,
          'sysctl',
          '-q',
          '-w',
          'net.ipv6.conf.all.disable_ipv6=1',
          'net.ipv6.conf.default.disable_ipv6=1',
        ]);
        const inside = [
          `address add ${addressing.instanceAddress}/${addressing.prefixLength} dev ${names.instanceVeth}`,
          `link set ${names.instanceVeth} up`,
          'link set lo up',
          // Without a default route an egress-none instance cannot even address anything beyond its /30.
          ...(egress === 'internet' ? [`route add default via ${addressing.hostAddress}`] : []),
        ];
        await ip(['-n', names.netns, '-batch', '-'], `${inside.join('\n')}\n`);
      };
      // Both settle before a failure is thrown, so the caller's cleanup never races a running step.
      const ends = await Promise.allSettled([hostEnd(), instanceEnd()]);
      for (const end of ends) if (end.status === 'rejected') throw end.reason;
    },
    async remove(names) {
      const linkArgs = ['link', 'delete', names.hostVeth];
      ignoreMissing(await run('ip', linkArgs, { allowFailure: true }), 'ip', linkArgs);
      const nsArgs = ['netns', 'delete', names.netns];
      ignoreMissing(await run('ip', nsArgs, { allowFailure: true }), 'ip', nsArgs);
    },
    async listNamespaces() {
      const { stdout } = await ip(['-j', 'netns', 'list']);
      const parsed = stdout.trim() === '' ? [] : (JSON.parse(stdout) as { name?: string }[]);
      return parsed.flatMap((entry) => (entry.name ? [entry.name] : []));
    },
    async listVeths() {
      const { stdout } = await ip(['-j', 'link', 'show', 'type', 'veth']);
      const parsed = stdout.trim() === '' ? [] : (JSON.parse(stdout) as IpAddrJson[]);
      return parsed.flatMap((entry) => (entry.ifname ? [entry.ifname] : []));
    },
    async listAddresses() {
      const { stdout } = await ip(['-j', '-4', 'address', 'show']);
      const parsed = stdout.trim() === '' ? [] : (JSON.parse(stdout) as IpAddrJson[]);
      return parsed.flatMap((entry) =>
        (entry.addr_info ?? []).flatMap((info) =>
          info.family === 'inet' && info.local && info.prefixlen !== undefined
            ? [{ interface: entry.ifname ?? '', address: info.local, prefixLength: info.prefixlen }]
            : [],
        ),
      );
    },
    async defaultRouteInterface() {
      const { stdout } = await ip(['-j', '-4', 'route', 'show', 'default']);
      const parsed = stdout.trim() === '' ? [] : (JSON.parse(stdout) as { dev?: string }[]);
      return parsed[0]?.dev;
    },
    async readSysctls(keys) {
      if (keys.length === 0) return new Map();
      // -e: a key that does not exist is skipped instead of failing the whole read.
      const { stdout } = await run('sysctl', ['-e', ...keys], { allowFailure: true });
      const values = new Map<string, string>();
      for (const line of stdout.split('\n')) {
        const match = /^(\S+) = (.*)$/.exec(line.trim());
        if (match?.[1] && match[2] !== undefined) values.set(match[1], match[2]);
      }
      return values;
    },
    async writeSysctls(values) {
      if (values.size > 0) await sysctl([...values].map(([key, value]) => `${key}=${value}`));
    },
  };
}
