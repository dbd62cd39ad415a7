import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import { runCommand } from './command-runner';
import type { SandboxDriver, StartedInstance } from './local-driver';
import { createLocalDriver } from './local-driver';
import { instanceNames } from './naming';
import { formatIpv4, parseIpv4 } from '@sandbox/protocol';
import { leftovers, NO_LEFTOVERS } from './test-support/leaks.fixture';
import { describeAsRoot } from './test-support/describe-as-root.fixture';
import { exampleImage, exampleSpec, testLogger } from './test-support/example-app.fixture';
import { holdConnection, probeFromInstance } from './test-support/sandbox-probe.fixture';
import { uniqueHost } from './test-support/unique-host.fixture';

const { prefix: PREFIX, subnet: SUBNET } = uniqueHost('si');
const PROTECTED_PORT = 16391;
const OPEN_PORT = 16392;
const ECHO_PORT = 16393;
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;

let driver: SandboxDriver;
let instance: StartedInstance;
let hostAddress = '';
const servers: Server[] = [];
/** Connections the echo server holds: destroyed at the end, or closing the server would wait on them. */
const held = new Set<Socket>();
/** Rules a test added as another tool would; each is deleted again after the test. */
const foreign: string[][] = [];

const names = () => instanceNames(PREFIX, instance.instanceId);
const iptables = (...args: string[]) => runCommand('iptables', ['-w', '5', ...args]);
const probeHost = () => probeFromInstance(names().container, hostAddress, OPEN_PORT);

/** Empties the second layer (what a tool inside the namespace could do), so a host drift shows. */
async function openNamespaceLayer(): Promise<void> {
  const open = '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n';
  await runCommand('ip', ['netns', 'exec', names().netns, 'iptables-restore', '-w', '5'], { input: open });
}

const problem = (name: string) => expect.arrayContaining([expect.objectContaining({ problem: name })]);

async function addForeign(table: string, chain: string, ...rule: string[]): Promise<void> {
  await iptables('-t', table, '-I', chain, '1', ...rule);
  foreign.push(['-t', table, '-D', chain, ...rule]);
}

async function listen(host: string, port: number): Promise<void> {
  const server = createServer((socket) => socket.end('host\n'));
  servers.push(server);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
}

describeAsRoot('isolation that holds when other tools change the host firewall', () => {
  beforeAll(async () => {
    driver = createLocalDriver({
      logger: testLogger,
      prefix: PREFIX,
      subnet: SUBNET,
      hostPorts: [PROTECTED_PORT],
    });
    instance = await driver.start(exampleSpec(await exampleImage()));
    await driver.waitForReady(instance, HEALTH);
    hostAddress = formatIpv4(parseIpv4(instance.address) - 1);
    await listen(hostAddress, PROTECTED_PORT);
    await listen(hostAddress, OPEN_PORT);
    const echo = createServer((socket) => {
      held.add(socket.on('close', () => held.delete(socket)));
      socket.pipe(socket);
    });
    servers.push(echo);
    await new Promise<void>((resolve, reject) =>
      echo.once('error', reject).listen(ECHO_PORT, hostAddress, resolve),
    );
  }, 120_000);

  afterEach(async () => {
    for (const rule of foreign.splice(0)) await iptables(...rule);
  });

  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    for (const found of await driver.list()) await driver.stop(found.instanceId);
    expect(await leftovers(PREFIX)).toEqual(NO_LEFTOVERS);
  }, 60_000);

  it('finds nothing to restore while the rules are as installed', async () => {
    expect(await driver.checkIsolation()).toEqual([]);
    expect((await probeHost()).result).not.toBe('connected');
  });

  it('restores a deleted INPUT jump, which opens nothing while the namespace layer holds', async () => {
    await iptables('-D', 'INPUT', '-i', names().hostVeth, '-j', names().egressChain);
    expect((await probeFromInstance(names().container, hostAddress, PROTECTED_PORT)).result).not.toBe(
      'connected',
    );
    // Both layers gone: every host listener is open to the app (the probe itself works).
    await openNamespaceLayer();
    expect(await probeFromInstance(names().container, hostAddress, PROTECTED_PORT)).toMatchObject({
      result: 'connected',
    });
    const [drift] = await driver.checkIsolation();
    expect(drift).toMatchObject({ action: 'restored', problems: problem('jump-missing') });
    expect(drift?.problems).toEqual(problem('namespace-rules-altered'));
    expect((await probeFromInstance(names().container, hostAddress, PROTECTED_PORT)).result).not.toBe(
      'connected',
    );
    expect(await driver.checkIsolation()).toEqual([]);
  });

  it('moves its jumps back in front of an ACCEPT another tool inserted first', async () => {
    await addForeign('filter', 'INPUT', '-i', names().hostVeth, '-j', 'ACCEPT');
    expect((await probeHost()).result).not.toBe('connected');
    const [drift] = await driver.checkIsolation();
    expect(drift).toMatchObject({ action: 'restored', problems: [{ problem: 'jump-not-first' }] });
    expect((await probeHost()).result).not.toBe('connected');
  });

  it('keeps DNAT of other tools away from its packets, and the filter refuses what DNAT would reach', async () => {
    const redirect = ['-i', names().hostVeth, '-p', 'tcp', '--dport', '9', '-j', 'DNAT'];
    await addForeign('nat', 'PREROUTING', ...redirect, '--to-destination', `${hostAddress}:${OPEN_PORT}`);
    // The DNAT applies (it is first), but the egress chain judges the rewritten destination: refused.
    expect((await probeFromInstance(names().container, hostAddress, 9)).result).not.toBe('connected');
    const [drift] = await driver.checkIsolation();
    expect(drift).toMatchObject({ action: 'restored', problems: [{ problem: 'jump-not-first' }] });
    const { stdout } = await iptables('-t', 'nat', '-S', 'PREROUTING');
    expect(stdout.split('\n')[1]).toBe(`-A PREROUTING -i ${names().hostVeth} -j ${names().preroutingChain}`);
  });

  it('turns forwarding on its veth off again after something turned it on', async () => {
    const key = `net.ipv4.conf.${names().hostVeth}.forwarding`;
    await runCommand('sysctl', ['-q', '-w', `${key}=1`]);
    const [drift] = await driver.checkIsolation();
    expect(drift).toMatchObject({ action: 'restored', problems: [{ problem: 'sysctl' }] });
    expect((await runCommand('sysctl', ['-n', key])).stdout.trim()).toBe('0');
  });

  it('finds and restores a rule replaced in place inside its own chain (same count, same last rule)', async () => {
    const chain = names().egressChain;
    const rules = (await iptables('-S', chain)).stdout.split('\n').filter((line) => line.startsWith('-A '));
    const local = rules.findIndex((rule) => rule.includes('--dst-type LOCAL'));
    expect(local).toBeGreaterThanOrEqual(0);
    await iptables('-R', chain, String(local + 1), '-m', 'addrtype', '--dst-type', 'LOCAL', '-j', 'ACCEPT');
    await openNamespaceLayer();
    expect((await probeHost()).result).toBe('connected');
    const [drift] = await driver.checkIsolation();
    expect(drift).toMatchObject({ action: 'restored', problems: problem('chain-altered') });
    expect((await probeHost()).result).not.toBe('connected');
    expect(await driver.checkIsolation()).toEqual([]);
  });

  it('trusts no look-alike chain: an ACCEPT chain named like a driver chain, jumped to first, is drift', async () => {
    const lookAlike = `QQZ-${instance.instanceId}-E`;
    await iptables('-N', lookAlike);
    foreign.push(['-X', lookAlike]);
    await iptables('-A', lookAlike, '-j', 'ACCEPT');
    foreign.unshift(['-F', lookAlike]);
    await addForeign('filter', 'INPUT', '-i', names().hostVeth, '-j', lookAlike);
    // The foreign jump goes first in the clean-up, then the chain is emptied and deleted.
    foreign.unshift(foreign.pop() ?? []);
    await openNamespaceLayer();
    expect((await probeHost()).result).toBe('connected');
    const [drift] = await driver.checkIsolation();
    expect(drift).toMatchObject({ action: 'restored', problems: problem('jump-not-first') });
    expect((await probeHost()).result).not.toBe('connected');
  });

  it('leaves no afterlife: a connection the app opened during a window is dead after the restore', async () => {
    await iptables('-D', 'INPUT', '-i', names().hostVeth, '-j', names().egressChain);
    await openNamespaceLayer();
    const connection = holdConnection(names().container, hostAddress, ECHO_PORT);
    try {
      // The window is open: the app's connection to a host listener works, round trip after round trip.
      await connection.waitForLine((line) => line === 'alive', 30_000);
      const [drift] = await driver.checkIsolation();
      expect(drift).toMatchObject({ action: 'restored', problems: problem('jump-missing') });
      expect(await connection.waitForLine((line) => line.startsWith('dead'), 15_000)).toMatch(/^dead/);
    } finally {
      await connection.kill();
    }
  });

  it('checks the namespace layer on its own: a rule replaced there, and rules added to another table', async () => {
    const netns = (...args: string[]) =>
      runCommand('ip', ['netns', 'exec', names().netns, 'iptables', '-w', '5', ...args]);
    const rules = (await netns('-S', 'OUTPUT')).stdout.split('\n').filter((line) => line.startsWith('-A '));
    const subnet = rules.findIndex((rule) => rule.startsWith(`-A OUTPUT -d ${SUBNET} `));
    expect(subnet).toBeGreaterThanOrEqual(0);
    await netns('-R', 'OUTPUT', String(subnet + 1), '-d', SUBNET, '-j', 'ACCEPT');
    await netns(
      '-t',
      'nat',
      '-A',
      'OUTPUT',
      '-p',
      'tcp',
      '-j',
      'DNAT',
      '--to-destination',
      `${hostAddress}:${OPEN_PORT}`,
    );
    // The host layer alone still refuses the host.
    expect((await probeHost()).result).not.toBe('connected');
    expect(await driver.checkIsolation()).toEqual([
      expect.objectContaining({
        action: 'restored',
        problems: [
          expect.objectContaining({
            problem: 'namespace-rules-altered',
            detail: expect.stringContaining('OUTPUT'),
          }),
          expect.objectContaining({ problem: 'namespace-foreign-rules', detail: 'nat OUTPUT' }),
        ],
      }),
    ]);
    expect((await netns('-S', 'OUTPUT')).stdout).toContain(`-A OUTPUT -d ${SUBNET} -j REJECT`);
    expect((await netns('-t', 'nat', '-S', 'OUTPUT')).stdout).not.toContain('DNAT');
    expect(await driver.checkIsolation()).toEqual([]);
  });

  it('restores a deleted jump by itself within seconds while watching', async () => {
    const seen: string[] = [];
    const watch = driver.watchIsolation({ intervalMs: 200, onDrift: (drift) => seen.push(drift.action) });
    try {
      await iptables('-D', 'FORWARD', '-o', names().hostVeth, '-j', names().ingressChain);
      const deadline = Date.now() + 10_000;
      while (seen.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await watch.stop();
    }
    expect(seen).toEqual(['restored']);
    const { stdout } = await iptables('-S', 'FORWARD');
    expect(stdout).toContain(`-A FORWARD -o ${names().hostVeth} -j ${names().ingressChain}`);
  });
});
