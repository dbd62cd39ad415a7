import { describe, expect, it } from '@jest/globals';
import type { CommandResult, CommandRunner } from './command-runner';
import { CommandError, runCommand } from './command-runner';
import { createConntrack } from './conntrack';

function runner(result: CommandResult): { run: CommandRunner; lines: string[] } {
  const lines: string[] = [];
  const run: CommandRunner = async (command, args) => {
    lines.push([command, ...args].join(' '));
    return result;
  };
  return { run, lines };
}

describe('createConntrack', () => {
  it('deletes the flows the instance opened, on the host and inside its namespace', async () => {
    const { run, lines } = runner({ stdout: '', stderr: '2 flow entries have been deleted.', exitCode: 0 });
    await createConntrack(run).forgetFlowsFrom('10.213.0.2', 'sbx-abcdefghij');
    expect(lines).toEqual([
      'conntrack -D -s 10.213.0.2',
      'ip netns exec sbx-abcdefghij conntrack -D -s 10.213.0.2',
    ]);
  });

  it('takes "nothing matched" (exit 1) as done', async () => {
    const stderr = 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.';
    const { run } = runner({ stdout: '', stderr, exitCode: 1 });
    await expect(createConntrack(run).forgetFlowsFrom('10.213.0.2')).resolves.toBeUndefined();
  });

  it('fails on any other failure, so the restore fails and the instance is withdrawn', async () => {
    const { run } = runner({ stdout: '', stderr: 'Operation not permitted', exitCode: 1 });
    await expect(createConntrack(run).forgetFlowsFrom('10.213.0.2')).rejects.toBeInstanceOf(CommandError);
    // A host without the tool: the real runner, a binary that is not there.
    const missing = createConntrack(runCommand, '/nonexistent/conntrack');
    await expect(missing.forgetFlowsFrom('10.213.0.2')).rejects.toBeInstanceOf(CommandError);
  });
});
