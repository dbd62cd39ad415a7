import { runCommand, type CommandRunner } from '@sandbox/sandbox-local';

/**
 * The `go version` line when a Go toolchain is on PATH, otherwise undefined. The harness's heavy
 * tests skip only in that case: everything else they need is built on first use.
 */
export async function goToolchain(
  goPath = 'go',
  run: CommandRunner = runCommand,
): Promise<string | undefined> {
  try {
    const result = await run(goPath, ['version'], { timeoutMs: 30_000 });
    return result.stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}
