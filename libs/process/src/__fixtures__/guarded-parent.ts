// A parent for the group-guard spec: starts a child that starts a grandchild (all in the child's
// group), prints both pids, and waits to be killed.
import { startChildProcess } from '../child-process';

const child = startChildProcess('sh', ['-c', 'sleep 600 & echo "$!"; wait']);
const grandchild = await child.waitForLine((line) => /^\d+$/u.test(line), 10_000);
process.stdout.write(`${child.pid} ${grandchild}\n`);
setInterval(() => undefined, 1_000);
