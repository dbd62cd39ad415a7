// Runs one stack member so it can be replaced by a new process on request, as a service manager
// restarts a daemon: `supervise.ts <state-dir> -- <command> [args...]`. SIGHUP with a new id in
// <state-dir>/request stops the child (SIGTERM) and starts a new one; a child that exits on its own
// ends the supervisor with its code, so the stack still sees a crashed member. SIGTERM/SIGINT stop both.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { restartFiles } from './restart-files';

const STOP_GRACE_MS = 15_000;
const [dir, separator, command, ...args] = process.argv.slice(2);
if (dir === undefined || separator !== '--' || command === undefined) {
  process.stderr.write('usage: supervise.ts <state-dir> -- <command> [args...]\n');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
const files = restartFiles(dir);
let child: ChildProcess;
let replacing = false;
let stopping = false;

function start(): void {
  child = spawn(command as string, args, { stdio: 'inherit' });
  if (child.pid !== undefined) files.setChildPid(child.pid);
  child.once('exit', (code, signal) => {
    if (replacing) return;
    process.exit(stopping ? 0 : (code ?? (signal === null ? 1 : 128)));
  });
}

function stopChild(running: ChildProcess): Promise<void> {
  if (running.exitCode !== null || running.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => running.kill('SIGKILL'), STOP_GRACE_MS);
    running.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    running.kill('SIGTERM');
  });
}

async function restart(): Promise<void> {
  const id = files.request();
  if (replacing || stopping || id === '' || id === files.handled()) return;
  replacing = true;
  await stopChild(child);
  start();
  files.setHandled(id);
  replacing = false;
  // A request that came in while this one was being handled.
  if (files.request() !== id) void restart();
}

process.on('SIGHUP', () => void restart());
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    stopping = true;
    void stopChild(child).then(() => process.exit(0));
  });
}
files.setSupervisorPid(process.pid);
start();
