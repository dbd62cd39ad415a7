import { startProcess, type LineSink, type ManagedProcess, type ProcessSpec } from './managed-process';

const STOP_GRACE_MS = 15_000;
const NAME_WIDTH = 18;

const writeLine: LineSink = (name, line) => {
  // A closed stdout (its reader gone) must not crash the stack before it stops its members.
  if (process.stdout.writable) process.stdout.write(`${name.padEnd(NAME_WIDTH)}| ${line}\n`);
};
process.stdout.on('error', () => undefined);

/**
 * Starts the members in order, each once the previous is ready, then waits for a stop signal or for a
 * member to exit on its own (which stops the rest). Resolves the exit code of the stack.
 */
export async function runStack(specs: ProcessSpec[], signals: NodeJS.EventEmitter): Promise<number> {
  const running: ManagedProcess[] = [];
  let stopping: Promise<void> | undefined;
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const member of [...running].reverse()) await member.stop(STOP_GRACE_MS);
    })());
  // Children run in their own process groups, so nothing else would stop them if the stack died
  // without running stopAll (an uncaught error, or its terminal going away).
  process.once('exit', () => running.forEach((member) => member.forceKill()));
  const stopSignal = new Promise<string>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) signals.on(signal, () => resolve(signal));
  });

  try {
    for (const spec of specs) {
      const member = startProcess(spec, writeLine);
      running.push(member);
      const started = await Promise.race([member.waitReady().then(() => 'ready' as const), stopSignal]);
      if (started !== 'ready') break;
      if (spec.banner) writeLine('stack', `${spec.name} ready at ${spec.banner}`);
    }
  } catch (error) {
    writeLine('stack', `start-up failed: ${(error as Error).message}`);
    await stopAll();
    return 1;
  }
  if (running.length === specs.length) writeLine('stack', 'all members are ready; press Ctrl-C to stop');

  const unexpected = Promise.race(running.map((member) => member.exited.then(() => member.spec.name)));
  const reason = await Promise.race([
    stopSignal.then((signal) => ({ signal })),
    unexpected.then((name) => ({ name })),
  ]);
  if ('name' in reason) writeLine('stack', `${reason.name} exited unexpectedly; stopping the others`);
  else writeLine('stack', `${reason.signal} received; stopping`);
  await stopAll();
  writeLine('stack', 'stopped');
  return 'name' in reason ? 1 : 0;
}
