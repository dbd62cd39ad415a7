import { describe, expect, it } from '@jest/globals';
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
function scriptedRunner(fail?: string): { run: CommandRunner; calls: Call[] } {
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

describe('createLocalDriver', () => {
  it('creates namespace, veth, rules and container in order on the first free /30', async () => {
    const { run, calls } = scriptedRunner();
    const driver = createLocalDriver({ logger, run, subnet: '10.213.0.0/24', hostPorts: [6379] });
    await expect(driver.start(spec)).resolves.toEqual({
      instanceId: 'abcdefghij',
      address: '10.213.0.6',
      port: 8080,
      url: 'http://10.213.0.6:8080',
    });
    const order = calls.map((call) => `${call.command} ${call.args.slice(0, 2).join(' ')}`);
    expect(order[0]).toBe('ip netns add');
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
    const driver = createLocalDriver({ logger, run });
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
    const driver = createLocalDriver({ logger, run });
    await expect(driver.start(spec)).rejects.toMatchObject({ name: 'InstanceStartError', step: 'namespace' });
    expect(calls).toHaveLength(1);
  });

  it('rejects an invalid spec before running anything', async () => {
    const { run, calls } = scriptedRunner();
    const driver = createLocalDriver({ logger, run });
    await expect(driver.start({ ...spec, port: 70000 })).rejects.toBeInstanceOf(InstanceSpecError);
    expect(calls).toHaveLength(0);
  });

  it('stops idempotently and reports a step that really failed after trying the others', async () => {
    const { run, calls } = scriptedRunner('iptables-save');
    const driver = createLocalDriver({ logger, run });
    await expect(driver.stop('abcdefghij')).rejects.toBeInstanceOf(AggregateError);
    expect(calls.map((call) => call.args.slice(0, 2).join(' '))).toEqual([
      'rm --force',
      'netns pids',
      '',
      'link delete',
      'netns delete',
    ]);
  });
});
