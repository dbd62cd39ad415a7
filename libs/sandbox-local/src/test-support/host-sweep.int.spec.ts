import { expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { parentEnv, startTsProcess, waitFor } from '@sandbox/testing';
import { runCommand } from '../command-runner';
import { describeAsRoot } from './describe-as-root.fixture';
import { sweepHost } from './host-sweep.fixture';
import { leftovers } from './leaks.fixture';

const OWNER = fileURLToPath(new URL('./host-owner.fixture.ts', import.meta.url));
/** What carries the prefix (orphan sandboxes are machine-wide, not the prefix's). */
const owned = async (prefix: string) => {
  const { containers, namespaces, links, chains } = await leftovers(prefix);
  return { containers, namespaces, links, chains };
};

describeAsRoot('the host sweep of a test run', () => {
  it('removes what a SIGKILLed test process left under its prefix', async () => {
    const owner = startTsProcess(OWNER, [], { env: parentEnv() });
    let prefix = '';
    try {
      prefix = await owner.waitForLine((line) => /^hs[a-z]{2}$/u.test(line), 60_000);
      const before = await owned(prefix);
      expect([before.namespaces.length, before.links.length, before.chains.length]).toEqual([1, 2, 1]);
      owner.signal('SIGKILL');
      await waitFor(
        async () => {
          const now = await owned(prefix);
          return Object.values(now).every((names) => names.length === 0);
        },
        { description: 'the sweep to remove the namespace, the links and the chain', timeoutMs: 30_000 },
      );
      const { stdout } = await runCommand('iptables', ['-w', '5', '-S', 'INPUT']);
      expect(stdout).not.toContain(`${prefix.toUpperCase()}-`);
    } finally {
      await owner.kill();
      if (prefix) await sweepHost(prefix);
    }
  }, 90_000);
});
