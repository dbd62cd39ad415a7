import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Server } from 'node:net';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { runCommand } from './command-runner';
import type { SandboxDriver, StartedInstance } from './local-driver';
import { createLocalDriver } from './local-driver';
import { instanceNames } from './naming';
import { formatIpv4, parseIpv4 } from './subnet';
import { leftovers } from './test-support/leaks.fixture';
import { describeAsRoot } from './test-support/describe-as-root.fixture';
import { exampleImage, exampleSpec, testLogger } from './test-support/example-app.fixture';
import { probeFromInstance } from './test-support/sandbox-probe.fixture';
import type { TargetNetwork } from './test-support/target-network.fixture';
import { createTargetNetwork, TARGETS } from './test-support/target-network.fixture';

const PREFIX = 'stb';
const SUBNET = '10.214.2.0/24';
const TARGET_PORT = 9555;
const REDIS_PORT = 16379;
const OTHER_PORT = 16380;
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;

let driver: SandboxDriver;
let targets: TargetNetwork | undefined;
const started: StartedInstance[] = [];
const servers: Server[] = [];
let loopbackPort = 0;

/** The host end of an instance's /30 (the instance is .2, the host .1). */
const hostAddressOf = (instance: StartedInstance) => formatIpv4(parseIpv4(instance.address) - 1);
const container = (instance: StartedInstance) => instanceNames(PREFIX, instance.instanceId).container;

async function listen(host: string, port: number): Promise<number> {
  const server = createServer((socket) => socket.end('host\n'));
  servers.push(server);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return (server.address() as AddressInfo).port;
}

/** Every destination an instance must not reach, with a name for the report. */
function forbidden(self: StartedInstance, other: StartedInstance): [string, string, number][] {
  const hostAddress = hostAddressOf(self);
  return [
    ['a host loopback service', '127.0.0.1', loopbackPort],
    ['a Redis-like listener on the host veth address', hostAddress, REDIS_PORT],
    ['the host veth address on an unprotected port', hostAddress, OTHER_PORT],
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
      link: { host: '10.215.2.1', fixture: '10.215.2.2' },
      control: { host: '10.214.2.253', inside: '10.214.2.254' },
      routingTable: 4215,
      port: TARGET_PORT,
    });
    driver = createLocalDriver({
      logger: testLogger,
      prefix: PREFIX,
      subnet: SUBNET,
      hostPorts: [REDIS_PORT],
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
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    for (const instance of started) await driver.stop(instance.instanceId);
    await targets?.close();
    expect(await leftovers(PREFIX)).toEqual({
      containers: [],
      namespaces: [],
      links: [],
      chains: [],
      orphanSandboxes: [],
    });
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

  it('still blocks them by iptables alone when routing and forwarding are opened', async () => {
    const names = instanceNames(PREFIX, a.instanceId);
    await runCommand('ip', ['-n', names.netns, 'route', 'add', 'default', 'via', hostAddressOf(a)]);
    await runCommand('sysctl', ['-q', '-w', `net.ipv4.conf.${names.hostVeth}.forwarding=1`]);
    await expectAllFail(a, [...forbidden(a, b), ['a public address', TARGETS.publicAddress, TARGET_PORT]]);
  });

  it('gives an egress-internet instance public addresses only, through NAT', async () => {
    const outcome = await probeFromInstance(container(c), TARGETS.publicAddress, TARGET_PORT);
    // The fixture sees the host's address on its link, not the instance's: the connection was masqueraded.
    expect(outcome).toEqual({ result: 'connected', detail: '10.215.2.1' });
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
});
