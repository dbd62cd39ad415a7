import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = join(HERE, '..', '..', '..', '..');

// `sh` reads a pipe from this process; end-of-file means this process is gone (SIGKILL included),
// and the shell runs `main.ts down`, which removes the whole cluster from the host, then its own
// log (kept when the clean-up failed, to say why).
const SCRIPT = 'while read -r _; do :; done; "$0" --import tsx "$1" down && rm -f -- "$2"';

/**
 * Arms a watchdog for the whole cluster: if this process dies without `stop()`, a detached
 * process runs the full host clean-up (processes, shims, sandboxes, iptables, cgroups, bridge).
 * Returns the function that disarms it.
 */
export function armClusterWatchdog(logFile: string): () => void {
  const fd = openSync(logFile, 'a');
  try {
    const guard = spawn('sh', ['-c', SCRIPT, process.execPath, join(HERE, 'main.ts'), logFile], {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ['pipe', fd, fd],
    });
    guard.on('error', () => undefined);
    guard.unref();
    (guard.stdin as Socket | null)?.unref();
    return () => {
      guard.kill('SIGKILL');
      guard.stdin?.destroy();
    };
  } finally {
    closeSync(fd);
  }
}
