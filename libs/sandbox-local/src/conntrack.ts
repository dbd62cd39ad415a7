import type { CommandRunner } from './command-runner';
import { CommandError } from './command-runner';

/** The connection-tracking table, through Debian's `conntrack` tool. */
export interface Conntrack {
  /**
   * Forgets every flow the instance at `address` opened, on the host and, given its namespace,
   * inside it: after a restore no flow opened during the window keeps its accepted state or its NAT
   * mapping, so its next packet is judged by the restored rules as a new one.
   */
  forgetFlowsFrom(address: string, netns?: string): Promise<void>;
}

/** `conntrack -D` exits 1 when nothing matched; only that message makes exit 1 a success. */
const NOTHING_DELETED = /0 flow entries have been deleted/;

/** The real {@link Conntrack}; a missing tool fails the call (and with it the restore: fail closed). */
export function createConntrack(run: CommandRunner, binary = 'conntrack'): Conntrack {
  async function remove(command: string, args: string[]): Promise<void> {
    const result = await run(command, args, { allowFailure: true });
    if (result.exitCode !== 0 && !(result.exitCode === 1 && NOTHING_DELETED.test(result.stderr)))
      throw new CommandError(command, args, result.exitCode, result.stderr);
  }
  return {
    async forgetFlowsFrom(address, netns) {
      await remove(binary, ['-D', '-s', address]);
      if (netns) await remove('ip', ['netns', 'exec', netns, binary, '-D', '-s', address]);
    },
  };
}
