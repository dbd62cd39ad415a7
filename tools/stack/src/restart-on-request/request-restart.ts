// Asks the stack's supervisor for a new process of a member that restarts on request (the member's
// restart files are in <state-dir>) and returns once it has one:
// `request-restart.ts <state-dir> <id> [timeout-ms]`. Idempotent per id: asked again with an id it
// already handled (a retry after the caller crashed), it restarts nothing and succeeds.
import { setTimeout as sleep } from 'node:timers/promises';
import { RESTART_ID, RESTART_SIGNAL, restartFiles } from './restart-files';

const [dir, id, timeoutText] = process.argv.slice(2);
if (dir === undefined || id === undefined || !RESTART_ID.test(id)) {
  process.stderr.write('usage: request-restart.ts <state-dir> <id> [timeout-ms]\n');
  process.exit(2);
}
const files = restartFiles(dir);
const deadline = Date.now() + (Number(timeoutText) || 60_000);
if (files.handled() !== id) {
  const supervisor = files.supervisorPid();
  if (supervisor === undefined) {
    process.stderr.write(`no supervisor in ${dir}\n`);
    process.exit(1);
  }
  files.setRequest(id);
  process.kill(supervisor, RESTART_SIGNAL);
  while (files.handled() !== id) {
    if (Date.now() > deadline) {
      process.stderr.write(`the member was not restarted in time (request ${id})\n`);
      process.exit(1);
    }
    await sleep(50);
  }
}
process.stdout.write(`restarted for ${id}: pid ${files.childPid() ?? 'unknown'}\n`);
