// Builds the newer runsc (systrap platform) pinned in libs/sandbox-local/runsc/go.mod into
// ~/.cache/sandbox-runtime and checks which runtime can run sandboxes here. Usage:
//   node --import tsx tools/images/src/build-runsc.ts
// Prints `runsc: <path>` and `runtime: <path> <flags>` (the preferred one that works).
import { chooseRuntime, ensureRunscBuild, runCommand } from '@sandbox/sandbox-local';
import { pino } from 'pino';

const logger = pino({ name: 'build-runsc' }, pino.destination(2));

async function main(): Promise<number> {
  const build = await ensureRunscBuild({ logger });
  logger.info({ path: build.path, version: build.version, built: build.built }, 'runsc ready');
  process.stdout.write(`runsc: ${build.path}\n`);
  const choice = await chooseRuntime(runCommand, [
    { runscPath: build.path, runtimeFlags: ['platform=systrap'] },
    { runscPath: 'runsc', runtimeFlags: [] },
  ]);
  if (!choice) {
    logger.error('no runsc can run a sandbox on this host');
    return 1;
  }
  process.stdout.write(`runtime: ${choice.runscPath} ${choice.runtimeFlags.join(' ')}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    logger.error({ err: error }, 'runsc build failed');
    process.exit(1);
  },
);
