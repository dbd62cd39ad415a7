import { closeSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGuard } from '@sandbox/process';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = join(HERE, '..', '..', '..', '..');

/**
 * Arms a guard (see `@sandbox/process`) for the whole cluster: if this process dies without `stop()`,
 * SIGKILL included, the guard runs `main.ts down`, which removes the whole cluster from the host
 * (processes, shims, sandboxes, iptables, cgroups, bridge), then its own log (kept when the clean-up
 * failed, to say why). Returns the function that disarms it.
 */
export function armClusterWatchdog(logFile: string): () => void {
  const fd = openSync(logFile, 'a');
  try {
    const guard = startGuard({
      label: 'cluster-guard',
      cwd: REPO_ROOT,
      outputFd: fd,
      stopOnFailure: true,
      steps: [
        [process.execPath, '--import', 'tsx', join(HERE, 'main.ts'), 'down'],
        ['rm', '-f', '--', logFile],
      ],
    });
    return () => guard.release();
  } finally {
    closeSync(fd);
  }
}
