import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandRunner } from '../command-runner';

/** A runsc binary and the flags the driver passes to it. */
export interface RuntimeCandidate {
  runscPath: string;
  runtimeFlags: string[];
}

/**
 * Whether the runtime can run a sandbox on this host: `runsc do /bin/true` under the candidate's
 * platform, with a deadline (a platform that cannot work here, such as KVM in this VM, hangs
 * rather than failing). Uses a throwaway state root.
 */
export async function canRunSandbox(
  run: CommandRunner,
  candidate: RuntimeCandidate,
  timeoutMs = 20_000,
): Promise<boolean> {
  const root = await mkdtemp(join(tmpdir(), 'runsc-canary-'));
  try {
    const flags = candidate.runtimeFlags.map((flag) => `--${flag}`);
    const args = [`--root=${root}`, ...flags, '--network=none', 'do', '/bin/true'];
    const result = await run(candidate.runscPath, args, { timeoutMs, allowFailure: true });
    return result.exitCode === 0;
  } catch {
    return false;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The first candidate that passes {@link canRunSandbox}: list the preferred runtime first, the fallback last. */
export async function chooseRuntime(
  run: CommandRunner,
  candidates: readonly RuntimeCandidate[],
): Promise<RuntimeCandidate | undefined> {
  for (const candidate of candidates) if (await canRunSandbox(run, candidate)) return candidate;
  return undefined;
}
