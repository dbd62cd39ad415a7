// Child process of the guarded-process test: runs `sleep` under a watchdog that owns `dir`, prints
// the sleep's pid, then waits to be killed. Usage: node --import tsx orphan-sleep.fixture.ts <dir>
import { join } from 'node:path';
import { spawnGuarded } from '../control-plane/guarded-process';

const dir = process.argv[2] ?? '';
const guarded = spawnGuarded({
  executable: '/bin/sleep',
  args: ['600'],
  cwd: dir,
  logFile: join(dir, 'sleep.log'),
  orphanDir: dir,
});
process.stdout.write(`${guarded.child.pid}\n`);
setInterval(() => undefined, 60_000);
