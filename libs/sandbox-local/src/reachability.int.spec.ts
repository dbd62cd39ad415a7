import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Server } from 'node:net';
import { createServer } from 'node:net';
import type { Socket } from 'node:dgram';
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { runCommand } from './command-runner';
import type { SandboxDriver, StartedInstance } from './local-driver';
import { createLocalDriver } from './local-driver';
import { instanceNames } from './naming';
import { formatIpv4, parseIpv4 } from '@sandbox/protocol';
import { leftovers, NO_LEFTOVERS } from './test-support/leaks.fixture';
import { describeAsRoot } from './test-support/describe-as-root.fixture';
import { exampleImage, exampleSpec, testLogger } from './test-support/example-app.fixture';
import {
  probeFromInstance,
  probeUdpFromInstance,
  resolveFromInstance,
} from './test-support/sandbox-probe.fixture';
import { uniqueHost } from './test-support/unique-host.fixture';
import type { TargetNetwork } from './test-support/target-network.fixture';
import { createTargetNetwork, TARGETS } from './test-support/target-network.fixture';

/** This run's own names and addresses; the fixture's link, control /30 and routing table follow from them. */
const { prefix: PREFIX, subnet: SUBNET } = uniqueHost('sb');
const THIRD_OCTET = Number(SUBNET.split('.')[2]);
/** The host end of the link to the target fixture: what the fixture sees after masquerading. */
const LINK_HOST = `10.232.${THIRD_OCTET}.1`;
const TARGET_PORT = 9555;
const REDIS_PORT = 16379;
const OTHER_PORT = 16380;
/** Stands in for the Node (orchestrator) port: protected like Redis's, at any address. */
const NODE_PORT = 18935;
const UDP_PORT = 16381;
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;

let driver: SandboxDriver;
let targets: TargetNetwork | undefined;
const started: StartedInstance[] = [];
const servers: Server[] = [];
const udpServers: Socket[] = [];
let loopbackPort = 0;
let primaryAddress = '';

/** A UDP echo on the given address: a reply proves a datagram got through. */
async function listenUdp(host: string, port: number): Promise<void> {
  const server = createSocket('udp4');
  udpServers.push(server);
  server.on('message', (message, peer) => server.send('host', peer.port, peer.address));
  await new Promise<void>((resolve, reject) => server.once('error', reject).bind(port, host, resolve));
}

/** The IPv4 address of the host's default-route interface (its address on the network). */
async function hostPrimaryAddress(): Promise<string> {
  const routes = JSON.parse(
    (await runCommand('ip', ['-j', '-4', 'route', 'show', 'default'])).stdout || '[]',
  );
  const device = (routes as { dev?: string }[])[0]?.dev;
  if (!device) throw new Error('the host has no default route');
  const shown = JSON.parse((await runCommand('ip', ['-j', '-4', 'address', 'show', 'dev', device])).stdout);
  const address = (shown as { addr_info?: { local?: string }[] }[])[0]?.addr_info?.[0]?.local;
  if (!address) throw new Error(`${device} has no IPv4 address`);
  return address;
}

/** The host end of an instance's /30 (the instance is .2, the host .1). */
const hostAddressOf = (instance: StartedInstance) => formatIpv4(parseIpv4(instance.address) - 1);
const container = (instance: StartedInstance) => instanceNames(PREFIX, instance.instanceId).container;

async function listen(host: string, port: number): Promise<number> {
  const server = createServer((socket) => socket.end('host\n'));
  servers.push(server);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return (server.address() as AddressInfo).port;
}

/** Empties the namespace layer of an instance, as only something inside its namespace could. */
async function openNamespaceLayer(instance: StartedInstance): Promise<void> {
  const open = '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n';
  const netns = instanceNames(PREFIX, instance.instanceId).netns;
  await runCommand('ip', ['netns', 'exec', netns, 'iptables-restore', '-w', '5'], { input: open });
}

/** Deletes the instance's jumps from the host's INPUT and FORWARD, as a firewall reload would. */
async function deleteHostJumps(instance: StartedInstance): Promise<void> {
  const names = instanceNames(PREFIX, instance.instanceId);
  for (const [chain, side, target] of [
    ['INPUT', '-i', names.egressChain],
    ['FORWARD', '-i', names.egressChain],
    ['FORWARD', '-o', names.ingressChain],
  ] as const)
    await runCommand('iptables', ['-w', '5', '-D', chain, side, names.hostVeth, '-j', target]);
}

/** Every destination an instance must not reach, with a name for the report. */
function forbidden(self: StartedInstance, other: StartedInstance): [string, string, number][] {
  const hostAddress = hostAddressOf(self);
  return [
    ['a host loopback service', '127.0.0.1', loopbackPort],
    ['a Redis-like listener on the host veth address', hostAddress, REDIS_PORT],
    ['the host veth address on an unprotected port', hostAddress, OTHER_PORT],
    ['the Node port on the host veth address', hostAddress, NODE_PORT],
    ['another instance', other.address, other.port],
    ['the cloud metadata address', TARGETS.metadata, TARGET_PORT],
    ['10.0.0.0/8', TARGETS.privateTen, TARGET_PORT],
    ['172.16.0.0/12', TARGETS.privateSixteen, TARGET_PORT],
    ['192.168.0.0/16', TARGETS.privateOneNineTwo, TARGET_PORT],
  ];
}

async function expectAllFail(self: StartedInstance, destinations: [string, string, number][]): Promise<void> {
  const outcomes = [];
  for (const [label, host, port] of destinations) {
    outcomes.push({ label, ...(await probeFromInstance(container(self), host, port)) });
  }
  expect(outcomes.filter((outcome) => outcome.result === 'connected')).toEqual([]);
}

describeAsRoot('reachability from inside a sandboxed instance', () => {
  let a: StartedInstance;
  let b: StartedInstance;
  let c: StartedInstance;

  beforeAll(async () => {
    const image = await exampleImage();
    targets = await createTargetNetwork({
      name: PREFIX,
      sourceSubnet: SUBNET,
      link: { host: LINK_HOST, fixture: `10.232.${THIRD_OCTET}.2` },
      control: { host: `10.230.${THIRD_OCTET}.253`, inside: `10.230.${THIRD_OCTET}.254` },
      // Below 32766, where the main table's rule sits: the fixture's routes must win over the default route.
      routingTable: 5_000 + THIRD_OCTET,
      port: TARGET_PORT,
    });
    driver = createLocalDriver({
      logger: testLogger,
      prefix: PREFIX,
      subnet: SUBNET,
      hostPorts: [REDIS_PORT, NODE_PORT],
      egressInterface: targets.uplink,
    });
    for (const egress of ['none', 'none', 'internet'] as const)
      started.push(await driver.start(exampleSpec(image, { egress })));
    [a, b, c] = started as [StartedInstance, StartedInstance, StartedInstance];
    await Promise.all(started.map((instance) => driver.waitForReady(instance, HEALTH)));
    loopbackPort = await listen('127.0.0.1', 0);
    for (const instance of [a, c]) {
      await listen(hostAddressOf(instance), REDIS_PORT);
      await listen(hostAddressOf(instance), OTHER_PORT);
      await listen(hostAddressOf(instance), NODE_PORT);
      await listenUdp(hostAddressOf(instance), UDP_PORT);
    }
    primaryAddress = await hostPrimaryAddress();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await Promise.all(
      udpServers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
    for (const instance of started) await driver.stop(instance.instanceId);
    await targets?.close();
    expect(await leftovers(PREFIX)).toEqual(NO_LEFTOVERS);
  }, 60_000);

  it('lets the host reach the app port of every instance', async () => {
    for (const instance of started) expect((await fetch(`${instance.url}/healthz`)).status).toBe(200);
  });

  it('has working paths to every target when no sandbox rules apply (control)', async () => {
    for (const address of Object.values(TARGETS)) {
      expect(await targets?.controlProbe(address, TARGET_PORT)).toMatchObject({ result: 'connected' });
    }
  });

  it('blocks every forbidden destination from an egress-none instance as deployed', async () => {
    await expectAllFail(a, [...forbidden(a, b), ['a public address', TARGETS.publicAddress, TARGET_PORT]]);
  });

  it('blocks the whole matrix by the host layer alone: namespace layer emptied, routing and forwarding opened', async () => {
    const names = instanceNames(PREFIX, a.instanceId);
    await runCommand('ip', ['-n', names.netns, 'route', 'add', 'default', 'via', hostAddressOf(a)]);
    await runCommand('sysctl', ['-q', '-w', `net.ipv4.conf.${names.hostVeth}.forwarding=1`]);
    for (const instance of [a, c]) await openNamespaceLayer(instance);
    await expectAllFail(a, [...forbidden(a, b), ['a public address', TARGETS.publicAddress, TARGET_PORT]]);
    await expectAllFail(c, forbidden(c, a));
    for (const instance of [a, c])
      expect(
        (await probeUdpFromInstance(container(instance), hostAddressOf(instance), UDP_PORT)).result,
      ).not.toBe('connected');
  });

  it('blocks the whole matrix by the namespace layer alone: every host jump deleted', async () => {
    // The guard finds the emptied namespace layer (and the opened forwarding) and restores them. (Other
    // tools on a shared host, kube-router say, may put their own jumps first: drift of b is possible.)
    const restored = await driver.checkIsolation();
    for (const instance of [a, c])
      expect(restored).toContainEqual(
        expect.objectContaining({
          instanceId: instance.instanceId,
          action: 'restored',
          problems: expect.arrayContaining([expect.objectContaining({ problem: 'namespace-rules-altered' })]),
        }),
      );
    for (const instance of [a, c]) await deleteHostJumps(instance);
    await expectAllFail(a, [...forbidden(a, b), ['a public address', TARGETS.publicAddress, TARGET_PORT]]);
    await expectAllFail(c, forbidden(c, a));
    for (const instance of [a, c])
      expect(
        (await probeUdpFromInstance(container(instance), hostAddressOf(instance), UDP_PORT)).result,
      ).not.toBe('connected');
    // Control: with the namespace layer emptied too, the host's listener answers, so the refusals
    // above were the namespace layer's.
    await openNamespaceLayer(a);
    expect(await probeFromInstance(container(a), hostAddressOf(a), OTHER_PORT)).toMatchObject({
      result: 'connected',
    });
    const again = await driver.checkIsolation();
    expect(again).toContainEqual(expect.objectContaining({ instanceId: a.instanceId, action: 'restored' }));
    // Both layers are back for the tests below.
    const left = await driver.checkIsolation();
    expect(
      left.flatMap((drift) => drift.problems).filter((found) => found.problem.startsWith('namespace')),
    ).toEqual([]);
  });

  it('gives an egress-internet instance public addresses only, through NAT', async () => {
    const outcome = await probeFromInstance(container(c), TARGETS.publicAddress, TARGET_PORT);
    // The fixture sees the host's address on its link, not the instance's: the connection was masqueraded.
    expect(outcome).toEqual({ result: 'connected', detail: LINK_HOST });
    await expectAllFail(c, forbidden(c, a));
  });

  it('has no IPv6 address inside the namespace', async () => {
    const { stdout } = await runCommand('ip', [
      '-n',
      instanceNames(PREFIX, a.instanceId).netns,
      '-6',
      'address',
      'show',
    ]);
    expect(stdout.trim()).toBe('');
  });

  it('gets no UDP reply from the host, from either instance, while the host answers UDP itself', async () => {
    // Control: the echo answers the host, so a timeout below is the firewall, not a missing listener.
    expect(await udpFromHost(hostAddressOf(a), UDP_PORT)).toBe('host');
    for (const instance of [a, c]) {
      expect(
        (await probeUdpFromInstance(container(instance), hostAddressOf(instance), UDP_PORT)).result,
      ).not.toBe('connected');
    }
  });

  it("refuses the host's primary address on TCP and UDP, by rule rather than by a closed port", async () => {
    for (const instance of [a, c]) {
      const tcp = await probeFromInstance(container(instance), primaryAddress, OTHER_PORT);
      // A closed port on a reachable host answers with a reset (ECONNREFUSED); the reject rule does not.
      expect(tcp.result).not.toBe('connected');
      expect(tcp.detail).not.toBe('ECONNREFUSED');
      const udp = await probeUdpFromInstance(container(instance), primaryAddress, 53);
      expect(udp.result).not.toBe('connected');
    }
  });

  it('refuses the Node port at any address, also for an egress-internet instance', async () => {
    for (const instance of [a, c]) {
      expect(
        (await probeFromInstance(container(instance), hostAddressOf(instance), NODE_PORT)).result,
      ).not.toBe('connected');
      expect((await probeFromInstance(container(instance), primaryAddress, NODE_PORT)).result).not.toBe(
        'connected',
      );
    }
  });

  it('fails every IPv6 attempt, TCP and UDP, to loopback, link-local, private and public addresses', async () => {
    const targets6 = ['::1', 'fe80::1', 'fd00:ec2::254', '2606:4700:4700::1111'];
    for (const instance of [a, c]) {
      for (const host of targets6) {
        expect((await probeFromInstance(container(instance), host, 443)).result).toBe('error');
        expect((await probeUdpFromInstance(container(instance), host, 53)).result).not.toBe('connected');
      }
    }
  });

  it('resolves no name, and no resolver on the host or the metadata network answers', async () => {
    for (const instance of [a, c]) {
      expect((await resolveFromInstance(container(instance), 'example.com')).result).toBe('error');
      for (const resolver of [hostAddressOf(instance), primaryAddress, '169.254.169.253', TARGETS.metadata]) {
        expect((await probeUdpFromInstance(container(instance), resolver, 53, 800)).result).not.toBe(
          'connected',
        );
      }
    }
  });
});

/** One UDP round trip from the host itself (the control for the UDP probes). */
async function udpFromHost(host: string, port: number): Promise<string> {
  const socket = createSocket('udp4');
  try {
    const reply = new Promise<string>((resolve) =>
      socket.once('message', (message) => resolve(message.toString())),
    );
    socket.send('control', port, host);
    return await reply;
  } finally {
    socket.close();
  }
}
