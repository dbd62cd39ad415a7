import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { CommandOptions, CommandResult, CommandRunner } from './command-runner';
import { CommandError } from './command-runner';
import { InstanceStartError, InstanceSpecError } from './instance-starter';
import { createLocalDriver } from './local-driver';

interface Call {
  command: string;
  args: string[];
  input?: string;
}

const ADDRESSES = JSON.stringify([
  { ifname: 'lo', addr_info: [{ family: 'inet', local: '127.0.0.1', prefixlen: 8 }] },
  { ifname: 'eth0', addr_info: [{ family: 'inet', local: '192.0.2.2', prefixlen: 24 }] },
  { ifname: 'sbxhzzzzzzzzzz', addr_info: [{ family: 'inet', local: '10.213.0.1', prefixlen: 30 }] },
]);

/** A runner that records calls and answers from a script; `fail` names a command prefix that exits 1. */
function scriptedRunner(
  fail?: string,
  answers: Record<string, string> = {},
): { run: CommandRunner; calls: Call[] } {
  const calls: Call[] = [];
  const run: CommandRunner = async (command, args, options: CommandOptions = {}) => {
    const call: Call = {
      command,
      args: [...args],
      ...(options.input === undefined ? {} : { input: options.input }),
    };
    calls.push(call);
    const line = [command, ...args].join(' ');
    const ok = (stdout = ''): CommandResult => ({ stdout, stderr: '', exitCode: 0 });
    if (fail && line.startsWith(fail)) {
      if (options.allowFailure) return { stdout: '', stderr: 'boom', exitCode: 1 };
      throw new CommandError(command, args, 1, 'boom');
    }
    if (answers[line] !== undefined) return ok(answers[line]);
    if (line === 'ip -j -4 address show') return ok(ADDRESSES);
    if (line === 'iptables-save') return ok('*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n');
    return ok();
  };
  return { run, calls };
}

const spec = {
  instanceId: 'abcdefghij',
  image: 'localhost/app:1',
  port: 8080,
  resources: { cpus: 1, memoryMb: 128 },
};
const logger = pino({ level: 'silent' });
/** Never the real /run/sandbox-local: nothing recorded there, so nothing is restored. */
const stateDir = join(tmpdir(), `sandbox-local-spec-${process.pid}`);

describe('createLocalDriver', () => {
  it('creates namespace, veth, rules and container in order on the first free /30', async () => {
    const { run, calls } = scriptedRunner();
    const driver = createLocalDriver({ logger, run, stateDir, subnet: '10.213.0.0/24', hostPorts: [6379] });
    await expect(driver.start(spec)).resolves.toEqual({
      instanceId: 'abcdefghij',
      address: '10.213.0.6',
      port: 8080,
      url: 'http://10.213.0.6:8080',
    });
    const order = calls.map((call) => `${call.command} ${call.args.slice(0, 2).join(' ')}`);
    // The capacity check reads what the driver's containers request, then the namespace is the lock.
    expect(order.slice(0, 2)).toEqual(['podman ps --all', 'ip netns add']);
    expect(order.indexOf('iptables-restore -w 5')).toBeLessThan(order.indexOf('podman run --detach'));
    const rules = calls.find((call) => call.command === 'iptables-restore')?.input ?? '';
    expect(rules).toContain('-d 192.0.2.0/24 -j REJECT');
    expect(rules).toContain('-d 10.213.0.0/24 -j REJECT');
    expect(rules).toContain('--dports 6379 ');
    const hostBatch = calls.find((call) => call.args.join(' ') === '-batch -');
    expect(hostBatch?.input).toContain('address add 10.213.0.5/30 dev sbxhabcdefghij');
  });

  it('removes everything it created when a later step fails', async () => {
    const { run, calls } = scriptedRunner('podman run');
    const driver = createLocalDriver({ logger, run, stateDir });
    await expect(driver.start(spec)).rejects.toBeInstanceOf(InstanceStartError);
    const lines = calls.map((call) => [call.command, ...call.args].join(' '));
    expect(lines).toEqual(
      expect.arrayContaining([
        'podman rm --force --ignore --time=5 sbx-abcdefghij',
        'ip link delete sbxhabcdefghij',
        'ip netns delete sbx-abcdefghij',
      ]),
    );
  });

  it('touches nothing of an instance whose namespace already exists', async () => {
    const { run, calls } = scriptedRunner('ip netns add');
    const driver = createLocalDriver({ logger, run, stateDir });
    await expect(driver.start(spec)).rejects.toMatchObject({ name: 'InstanceStartError', step: 'namespace' });
    expect(calls.map((call) => call.args.slice(0, 2).join(' '))).toEqual(['ps --all', 'netns add']);
  });

  it('rejects an invalid spec before running anything', async () => {
    const { run, calls } = scriptedRunner();
    const driver = createLocalDriver({ logger, run, stateDir });
    await expect(driver.start({ ...spec, port: 70000 })).rejects.toBeInstanceOf(InstanceSpecError);
    expect(calls).toHaveLength(0);
  });

  it('stops idempotently and reports a step that really failed after trying the others', async () => {
    const { run, calls } = scriptedRunner('iptables-save');
    const driver = createLocalDriver({ logger, run, stateDir });
    await expect(driver.stop('abcdefghij')).rejects.toBeInstanceOf(AggregateError);
    expect(calls.map((call) => call.args.slice(0, 2).join(' '))).toEqual([
      'rm --force',
      'netns pids',
      '',
      'link delete',
      'netns delete',
      'ps --all',
    ]);
  });

  it('records the uplink forwarding before turning it on, and puts it back when the last such instance stops', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbox-local-ledger-'));
    try {
      const { run, calls } = scriptedRunner(undefined, {
        'sysctl -e net.ipv4.conf.eth9.forwarding': 'net.ipv4.conf.eth9.forwarding = 0\n',
      });
      const driver = createLocalDriver({ logger, run, stateDir: dir, egressInterface: 'eth9' });
      await driver.start({ ...spec, egress: 'internet' });
      const writes = () => calls.filter((call) => call.args.includes('net.ipv4.conf.eth9.forwarding=1'));
      expect(writes()).toHaveLength(1);
      await driver.stop(spec.instanceId);
      const lines = calls.map((call) => [call.command, ...call.args].join(' '));
      expect(lines.at(-1)).toBe('sysctl -q -w net.ipv4.conf.eth9.forwarding=0');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('withdraws a running instance whose missing rules cannot be restored', async () => {
    const labels = {
      'sandbox.instance': 'abcdefghij',
      'sandbox.address': '10.213.0.2',
      'sandbox.port': '8080',
      'sandbox.egress': 'none',
      'sandbox.prefix': 'sbx',
    };
    const ps = JSON.stringify([{ Names: ['sbx-abcdefghij'], State: 'running', Labels: labels }]);
    const { run, calls } = scriptedRunner('iptables-restore', {
      'podman ps --all --filter=label=sandbox.prefix=sbx --format=json': ps,
    });
    const driver = createLocalDriver({ logger, run, stateDir });
    const [drift] = await driver.checkIsolation();
    expect(drift).toMatchObject({ instanceId: 'abcdefghij', action: 'withdrawn' });
    expect(drift?.problems.map((problem) => problem.problem)).toContain('chain-missing');
    const lines = calls.map((call) => [call.command, ...call.args].join(' '));
    expect(lines).toContain('podman rm --force --ignore --time=5 sbx-abcdefghij');
  });

  it('refuses an instance the host has no capacity left for, before creating anything', async () => {
    const labels = { 'sandbox.instance': 'zzzzzzzzzz', 'sandbox.cpus': '1.5', 'sandbox.memory-mb': '256' };
    const ps = JSON.stringify([{ Names: ['sbx-zzzzzzzzzz'], State: 'running', Labels: labels }]);
    const { run, calls } = scriptedRunner(undefined, {
      'podman ps --all --filter=label=sandbox.prefix=sbx --format=json': ps,
    });
    const driver = createLocalDriver({ logger, run, stateDir, capacity: { cpus: 2, memoryMb: 4096 } });
    await expect(driver.start(spec)).rejects.toMatchObject({
      name: 'InstanceCapacityError',
      requested: { cpus: 1, memoryMb: 128 },
    });
    expect(calls.map((call) => call.command)).toEqual(['podman']);
  });
});
