import { describe, expect, it } from '@jest/globals';
import type { CommandRunner } from './command-runner';
import { endNamespaceProcesses, parseSandboxCommand } from './namespace-processes';

const ID = 'ab'.repeat(32);
const SANDBOX_ARGS = ['runsc-sandbox', '--root=/var/run/runsc', '--network=host', 'boot', '--bundle=/x', ID];

describe('parseSandboxCommand', () => {
  it('finds the runsc root and container id of a sandbox process', () => {
    expect(parseSandboxCommand(SANDBOX_ARGS)).toEqual({ root: '/var/run/runsc', containerId: ID });
  });

  it('ignores other processes', () => {
    expect(parseSandboxCommand(['runsc-gofer', '--root=/var/run/runsc', 'gofer', ID])).toBeUndefined();
    expect(parseSandboxCommand(['node', 'main.mjs'])).toBeUndefined();
  });
});

describe('endNamespaceProcesses', () => {
  it('deletes sandboxes found in the namespace through the runsc binary they run', async () => {
    const calls: string[] = [];
    const run: CommandRunner = async (command, args) => {
      calls.push([command, ...args].join(' '));
      // PIDs far above pid_max, so the SIGKILL that follows reaches nothing real.
      return { stdout: command === 'ip' ? '99999991\n99999992\n' : '', stderr: '', exitCode: 0 };
    };
    const proc = {
      cmdline: async (pid: number) => (pid === 99999991 ? SANDBOX_ARGS : ['runsc-gofer']),
      exe: async () => '/usr/bin/runsc',
    };
    expect(await endNamespaceProcesses(run, 'sbx-abcdefghij', proc)).toBe(2);
    expect(calls).toEqual([
      'ip netns pids sbx-abcdefghij',
      `/usr/bin/runsc --root=/var/run/runsc delete --force ${ID}`,
    ]);
  });

  it('does nothing when the namespace is gone', async () => {
    const run: CommandRunner = async () => ({ stdout: '', stderr: 'No such file or directory', exitCode: 1 });
    expect(
      await endNamespaceProcesses(run, 'sbx-abcdefghij', {
        cmdline: async () => [],
        exe: async () => undefined,
      }),
    ).toBe(0);
  });
});
