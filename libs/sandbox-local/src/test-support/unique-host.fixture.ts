import { randomInt } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGuard } from '@sandbox/process';

const HERE = dirname(fileURLToPath(import.meta.url));
const SWEEP = join(HERE, 'host-sweep.fixture.ts');
const REPO_ROOT = join(HERE, '..', '..', '..', '..');

/**
 * A name prefix and an instance subnet for one test run: two engineers running the same root test at
 * once on one machine must not share namespaces, chains or addresses. `base` is the test file's own two
 * letters; two random letters follow, and the /24 is drawn from 10.230.0.0/16. A guard sweeps the host
 * of everything carrying the prefix once this process is gone (after its own clean-up that finds
 * nothing; after a SIGKILL of the test runner, what the run left).
 */
export function uniqueHost(base: string): { prefix: string; subnet: string } {
  const letter = () => String.fromCharCode(97 + randomInt(26));
  const prefix = `${base}${letter()}${letter()}`;
  startGuard({
    label: 'host-sweep-guard',
    cwd: REPO_ROOT,
    steps: [[process.execPath, '--import', 'tsx', SWEEP, prefix]],
  });
  return { prefix, subnet: `10.230.${randomInt(256)}.0/24` };
}
