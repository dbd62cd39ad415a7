import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { guardProcessGroup, startGuard, type Guard } from '@sandbox/process';
import { runCommand } from '../command-runner';
import type { ProbeOutcome } from './sandbox-probe.fixture';

/**
 * Destinations an instance must never reach, each held by a namespace this fixture creates, so no
 * probe ever leaves the machine even if a rule were missing. They are routed there only for packets
 * from the test subnet (policy routing), so the host's own traffic (to its metadata service, say) is
 * untouched; a guard rule drops anything from the test subnet towards the real uplink.
 */
export const TARGETS = {
  metadata: '169.254.169.254',
  privateTen: '10.99.0.1',
  privateSixteen: '172.16.99.1',
  privateOneNineTwo: '192.168.99.1',
  /** Stands in for "the internet" for egress tests; it exists only inside the fixture namespace. */
  publicAddress: '1.2.3.4',
} as const;

/** Options of {@link createTargetNetwork}. */
export interface TargetNetworkOptions {
  /** Names of the fixture's namespaces and links start with this (not an instance name form). */
  name: string;
  /** Sources whose packets are routed to the targets: the driver's subnet. */
  sourceSubnet: string;
  /** The /30 link to the fixture: host end, fixture end. */
  link: { host: string; fixture: string };
  /** A /30 inside `sourceSubnet` for the control namespace, which has no rules: host end, control end. */
  control: { host: string; inside: string };
  routingTable: number;
  port: number;
}

/** The running fixture. */
export interface TargetNetwork {
  /** Host end of the fixture link; the driver's `egressInterface` in tests. */
  uplink: string;
  /** Connects from the rule-free control namespace (proves a path exists without our rules). */
  controlProbe(host: string, port: number): Promise<ProbeOutcome>;
  close(): Promise<void>;
}

const LISTENER = `
const server = require('node:net').createServer((socket) => socket.end(socket.remoteAddress + '\\n'));
server.listen(Number(process.argv[1]), '0.0.0.0', () => process.stdout.write('ready\\n'));
`;

const PROBE = `
const [host, port] = process.argv.slice(1);
const socket = require('node:net').connect({ host, port: Number(port) });
let data = '';
const done = (result, detail) => { process.stdout.write(JSON.stringify({ result, detail })); process.exit(0); };
socket.setTimeout(1500, () => done('timeout'));
socket.on('error', (error) => done('error', error.code));
socket.on('data', (chunk) => { data += chunk; });
socket.on('end', () => done('connected', data.trim()));
`;

const ip = (...args: string[]) => runCommand('ip', args);

async function addPair(
  ns: string,
  hostAddress: string,
  insideAddress: string,
  extra: string[],
): Promise<void> {
  await ip('netns', 'add', ns);
  await ip('link', 'add', `${ns}h`, 'type', 'veth', 'peer', 'name', `${ns}c`, 'netns', ns);
  await runCommand('sysctl', [
    '-q',
    '-w',
    `net.ipv6.conf.${ns}h.disable_ipv6=1`,
    `net.ipv4.conf.${ns}h.forwarding=1`,
  ]);
  await ip('address', 'add', `${hostAddress}/30`, 'dev', `${ns}h`);
  await ip('link', 'set', `${ns}h`, 'up');
  const inside = [
    `address add ${insideAddress}/30 dev ${ns}c`,
    ...extra,
    `link set ${ns}c up`,
    'link set lo up',
    `route add default via ${hostAddress}`,
  ];
  await runCommand('ip', ['-n', ns, '-batch', '-'], { input: `${inside.join('\n')}\n` });
}

/** Builds the fixture; on any failure it removes what it made and rethrows. */
export async function createTargetNetwork(options: TargetNetworkOptions): Promise<TargetNetwork> {
  const fixture = `${options.name}fix`;
  const control = `${options.name}ctl`;
  const uplink = (
    JSON.parse((await ip('-j', '-4', 'route', 'show', 'default')).stdout || '[]') as { dev?: string }[]
  )[0]?.dev;
  const guard = uplink ? ['FORWARD', '-s', options.sourceSubnet, '-o', uplink, '-j', 'DROP'] : undefined;
  let listener: ChildProcess | undefined;
  let listenerGuard: Guard | undefined;
  // What close() does, run by a guard if this process dies first (a killed test runner runs no afterAll).
  const hostGuard = startGuard({
    label: 'target-network-guard',
    steps: [
      ['ip', 'rule', 'del', 'priority', String(options.routingTable)],
      ['ip', 'route', 'flush', 'table', String(options.routingTable)],
      ...(guard ? [['iptables', '-w', '5', '-D', ...guard]] : []),
      ...[fixture, control].flatMap((ns) => [
        ['ip', 'link', 'del', `${ns}h`],
        ['ip', 'netns', 'del', ns],
      ]),
    ],
  });
  const close = async () => {
    listener?.kill('SIGKILL');
    listenerGuard?.release();
    const quiet = { allowFailure: true } as const;
    await runCommand('ip', ['rule', 'del', 'priority', String(options.routingTable)], quiet);
    await runCommand('ip', ['route', 'flush', 'table', String(options.routingTable)], quiet);
    if (guard) await runCommand('iptables', ['-w', '5', '-D', ...guard], quiet);
    for (const ns of [fixture, control]) {
      await runCommand('ip', ['link', 'del', `${ns}h`], quiet);
      await runCommand('ip', ['netns', 'del', ns], quiet);
    }
    hostGuard.release();
  };
  try {
    if (guard) await runCommand('iptables', ['-w', '5', '-I', ...guard.slice(0, 1), '1', ...guard.slice(1)]);
    const targetAddresses = Object.values(TARGETS).map(
      (address) => `address add ${address}/32 dev ${fixture}c`,
    );
    await addPair(fixture, options.link.host, options.link.fixture, targetAddresses);
    await addPair(control, options.control.host, options.control.inside, []);
    for (const address of Object.values(TARGETS)) {
      await ip(
        'route',
        'add',
        `${address}/32`,
        'via',
        options.link.fixture,
        'dev',
        `${fixture}h`,
        'table',
        String(options.routingTable),
      );
    }
    await ip(
      'rule',
      'add',
      'from',
      options.sourceSubnet,
      'lookup',
      String(options.routingTable),
      'priority',
      String(options.routingTable),
    );
    listener = spawn(
      'ip',
      ['netns', 'exec', fixture, process.execPath, '-e', LISTENER, String(options.port)],
      { detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    if (listener.pid !== undefined) listenerGuard = guardProcessGroup(listener.pid);
    const [first] = (await once(listener.stdout ?? listener, 'data')) as [Buffer];
    if (!first.toString().includes('ready')) throw new Error('target listener did not start');
  } catch (error) {
    await close();
    throw error;
  }
  return {
    uplink: `${fixture}h`,
    async controlProbe(host, port) {
      const { stdout } = await runCommand('ip', [
        'netns',
        'exec',
        control,
        process.execPath,
        '-e',
        PROBE,
        host,
        String(port),
      ]);
      return JSON.parse(stdout) as ProbeOutcome;
    },
    close,
  };
}
