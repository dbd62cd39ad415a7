// One member under the stack's supervisor, restartable on request, for specs that need a process
// replaced the way `npm start` replaces the Node simulator during a drain:
// `run-restartable.ts <state-dir> <name> [--ready-url URL] -- <command> [args...]`. The member is
// restarted (with backoff) if it exits and replaced when `request-restart.ts` asks; SIGTERM/SIGINT
// stop both.
import { processEnv } from '../config';
import { createStackConsole } from '../console';
import { httpReady } from '../readiness';
import { runStack } from '../run-stack';

const argv = process.argv.slice(2);
const separator = argv.indexOf('--');
const [dir, name, readyFlag, readyUrl] = argv.slice(0, separator);
const [command, ...args] = separator < 0 ? [] : argv.slice(separator + 1);
const readyFlagOk = readyFlag === undefined || (readyFlag === '--ready-url' && readyUrl !== undefined);
if (dir === undefined || name === undefined || !readyFlagOk || command === undefined) {
  process.stderr.write(
    'usage: run-restartable.ts <state-dir> <name> [--ready-url URL] -- <command> [args...]\n',
  );
  process.exit(2);
}

function definedEntries(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

const out = createStackConsole({ write: (text) => void process.stdout.write(text), pretty: false });
process.exitCode = await runStack(
  [
    {
      name,
      command,
      args,
      // The member gets what its caller gave this process (the specs pass only PATH and HOME).
      env: definedEntries(processEnv()),
      cwd: process.cwd(),
      isReady: readyUrl === undefined ? () => Promise.resolve(true) : () => httpReady(readyUrl),
      readyTimeoutMs: 120_000,
      restartOnRequest: { dir },
    },
  ],
  { console: out, signals: process },
);
