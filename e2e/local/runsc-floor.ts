// The floor under create → discovery: `podman run` of the same image under the same runsc and flags
// as the stack's local driver, to the app's first HTTP 200, with nothing of ours in between.
import { guardContainer } from '@sandbox/process';
import { runCommand } from '@sandbox/sandbox-local';
import { findFreePort } from '@sandbox/testing';
import { request } from 'node:http';

/** The runsc the instance-manager chose, read from its `gVisor runtime chosen` log line. */
export interface ChosenRuntime {
  runscPath: string;
  runtimeFlags: string[];
}

/** Finds the instance-manager's runtime choice in the stack's output, or undefined when it has none yet. */
export function chosenRuntime(output: string): ChosenRuntime | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('gVisor runtime chosen')) continue;
    const json = line.slice(line.indexOf('{'));
    const parsed = JSON.parse(json) as { runsc?: unknown; flags?: unknown };
    if (typeof parsed.runsc === 'string' && Array.isArray(parsed.flags))
      return { runscPath: parsed.runsc, runtimeFlags: parsed.flags.map(String) };
  }
  return undefined;
}

function answers200(port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/**
 * One floor sample, in ms: `podman run --detach` on the host network (runsc `network=host`, so no
 * namespace or firewall of ours) until `GET path` answers 200, polled every 2 ms; then removed.
 */
export async function floorSample(image: string, runtime: ChosenRuntime, path: string): Promise<number> {
  const port = await findFreePort();
  const started = performance.now();
  const run = await runCommand('podman', [
    'run',
    '--detach',
    '--pull=never',
    `--runtime=${runtime.runscPath}`,
    '--runtime-flag=network=host',
    ...runtime.runtimeFlags.map((flag) => `--runtime-flag=${flag}`),
    '--network=host',
    `--env=PORT=${port}`,
    '--env=HOST=127.0.0.1',
    image,
  ]);
  const container = run.stdout.trim();
  // Removed if this process dies before the `finally` below.
  const guard = guardContainer(container);
  try {
    const deadline = started + 30_000;
    while (!(await answers200(port, path))) {
      if (performance.now() > deadline) throw new Error('the floor container never answered 200');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return performance.now() - started;
  } finally {
    await runCommand('podman', ['rm', '--force', '--time=0', container], { allowFailure: true });
    guard.release();
  }
}
