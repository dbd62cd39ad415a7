// What stands for the internet on the local node, where nothing may leave the machine: a host of our
// own in a network namespace, plugged into the node's pod bridge like a router would be, holding one
// public address that the node routes for pods through it alone (nothing reaches the machine's own
// network: pods have no other route and the host forwards nothing). The policy engine judges that
// traffic as it would the internet: `internet` apps may connect, `none` apps may not. A TCP server
// answers there, and a public DNS server: CoreDNS (the cluster's own build) answering for one name,
// as a public resolver would for the internet's names.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLUSTER_NETWORK, ensureClusterBinaries } from '@sandbox/kube-harness';
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import type { Exec } from './exec';
import type { InternetFacts } from './provider';

/** The stand-in's addresses; the node's pods get a route to `address` through `gateway`. */
export const INTERNET_STAND_IN = {
  namespace: 'sbxe2e-inet',
  /** Its public address (the node's one route for it) and the port its server answers on. */
  address: CLUSTER_NETWORK.outside.cidr.replace('/32', ''),
  port: 443,
  /** The name its DNS server answers with `address` (`.test` is reserved: it is never a real name). */
  name: 'stand-in.internet.test',
  /** Its address on the pod bridge: above the node's pod address range, so never given to a pod. */
  gateway: CLUSTER_NETWORK.outside.gateway,
  prefixLength: 24,
  /** Host end of its link, a port of the pod bridge. */
  hostLink: 'sbxe2e-inet0',
} as const;

const SERVER = `
const [host, port] = process.argv.slice(1);
require('node:net').createServer((socket) => socket.end('stand-in\\n')).listen(Number(port), host, () => process.stdout.write('listening\\n'));
`;

/** A running stand-in; `stop` removes its servers, link and namespace. */
export interface InternetStandIn extends InternetFacts {
  stop(): Promise<void>;
}

/** CoreDNS's configuration: `name` and nothing else (any other name is NXDOMAIN), on `address`:53. */
export function standInCorefile(address: string, name: string): string {
  return [
    '.:53 {',
    `    bind ${address}`,
    '    hosts {',
    `        ${address} ${name}`,
    '    }',
    '    errors',
    '}',
    '',
  ].join('\n');
}

/** Removes a stand-in left by an earlier run (its namespace holds the link's other end). */
export async function removeInternetStandIn(exec: Exec): Promise<void> {
  const { namespace, hostLink } = INTERNET_STAND_IN;
  await exec('ip', ['netns', 'pids', namespace], { allowFailure: true }).then(async (found) => {
    for (const pid of found.stdout.split(/\s+/).filter(Boolean))
      await exec('kill', ['-KILL', pid], { allowFailure: true });
  });
  await exec('ip', ['netns', 'del', namespace], { allowFailure: true });
  await exec('ip', ['link', 'del', hostLink], { allowFailure: true });
}

/** Plugs the stand-in into `bridge` and starts its server. */
export async function startInternetStandIn(exec: Exec, bridge: string): Promise<InternetStandIn> {
  const { namespace, address, port, name, gateway, prefixLength, hostLink } = INTERNET_STAND_IN;
  await removeInternetStandIn(exec);
  const coredns = (await ensureClusterBinaries()).paths['coredns'];
  if (!coredns) throw new Error('the cluster build has no coredns program');
  const configDir = await mkdtemp(join(tmpdir(), 'sbxe2e-inet-dns-'));
  let server: ChildProcessHandle | undefined;
  let resolver: ChildProcessHandle | undefined;
  const stop = async () => {
    await server?.stop(2_000);
    await resolver?.stop(2_000);
    await removeInternetStandIn(exec);
    await rm(configDir, { recursive: true, force: true });
  };
  try {
    const inside = (args: string[]) => exec('ip', ['-n', namespace, ...args]);
    await exec('ip', ['netns', 'add', namespace]);
    await exec('ip', ['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace]);
    await exec('ip', ['link', 'set', hostLink, 'master', bridge, 'up']);
    await inside(['link', 'set', 'lo', 'up']);
    await inside(['addr', 'add', `${address}/32`, 'dev', 'lo']);
    await inside(['addr', 'add', `${gateway}/${prefixLength}`, 'dev', 'eth0']);
    await inside(['link', 'set', 'eth0', 'up']);
    server = startChildProcess(
      'ip',
      ['netns', 'exec', namespace, process.execPath, '-e', SERVER, address, String(port)],
      {
        env: { PATH: process.env.PATH ?? '' },
      },
    );
    await server.waitForLine((line) => line === 'listening', 15_000);
    const corefile = join(configDir, 'Corefile');
    await writeFile(corefile, standInCorefile(address, name));
    resolver = startChildProcess('ip', ['netns', 'exec', namespace, coredns, '-conf', corefile], {
      env: { PATH: process.env.PATH ?? '' },
    });
    // CoreDNS prints its version once every server block listens.
    await resolver.waitForLine((line) => line.startsWith('CoreDNS-'), 15_000);
    return { host: address, port, resolver: address, name, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
