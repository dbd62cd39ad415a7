// Removes every host object whose name carries a test run's prefix: containers, network namespaces,
// links and iptables chains (with the rules that jump to them). What a test's guard runs when the test
// process died before its own clean-up. Usage: node --import tsx host-sweep.fixture.ts <prefix>
import { fileURLToPath } from 'node:url';
import { runCommand } from '../command-runner';
import { buildRemovalScript } from '../firewall-rules';
import { assertPrefix } from '../naming';
import { leftovers } from './leaks.fixture';

const quiet = { allowFailure: true } as const;

/** Removes what {@link leftovers} finds for `prefix` (never anything else: orphan sandboxes are left). */
export async function sweepHost(prefix: string): Promise<void> {
  assertPrefix(prefix);
  const found = await leftovers(prefix);
  for (const container of found.containers) {
    await runCommand('podman', ['rm', '--force', '--time', '0', '--ignore', container], quiet);
  }
  for (const netns of found.namespaces) await runCommand('ip', ['netns', 'delete', netns], quiet);
  for (const link of found.links) await runCommand('ip', ['link', 'delete', link], quiet);
  if (found.chains.length === 0) return;
  const saved = (await runCommand('iptables-save', [])).stdout;
  const script = buildRemovalScript(saved, new Set(found.chains));
  if (script) await runCommand('iptables-restore', ['--noflush', '-w', '5'], { ...quiet, input: script });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await sweepHost(process.argv[2] ?? '');
