// sandboxctl: the operator command line. The only impure entry: the real streams, clock and files.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from './cli/program';
import { processEnv } from './config';

const exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: processEnv(),
  now: Date.now,
  sleep: (ms) => sleep(ms),
  readFile: (path) => readFileSync(path, 'utf8'),
});
// Let buffered output (a pipe to less or jq) drain before the exit code is set.
process.exitCode = exitCode;
