import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { guardProcessGroup } from '@sandbox/process';
import { waitFor } from '@sandbox/testing';
import { restartFiles } from './restart-files';

const RUN = fileURLToPath(new URL('./run-restartable.ts', import.meta.url));
const REQUEST = fileURLToPath(new URL('./request-restart.ts', import.meta.url));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
let dir: string;
let supervisor: ReturnType<typeof spawn>;
let exited: Promise<number | null>;

const requestRestart = (id: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', REQUEST, dir, id, '20000'], { env, encoding: 'utf8' });

const alive = (pid: number | undefined): boolean => {
  try {
    return pid !== undefined && process.kill(pid, 0);
  } catch {
    return false;
  }
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restart-on-request-'));
  const child = ['-e', 'setInterval(() => undefined, 1000); process.on("SIGTERM", () => process.exit(0))'];
  supervisor = spawn(
    process.execPath,
    ['--import', 'tsx', RUN, dir, 'member', '--', process.execPath, ...child],
    {
      env,
      stdio: 'ignore',
      detached: true,
    },
  );
  // Killed with its group if this process dies first (a killed test runner runs no afterAll).
  const guard = guardProcessGroup(supervisor.pid as number);
  exited = new Promise((resolve) => supervisor.once('exit', (code) => resolve(code)));
  void exited.then(() => guard.release());
  await waitFor(() => restartFiles(dir).childPid(), { description: 'the first child', timeoutMs: 20_000 });
});

afterAll(async () => {
  if (supervisor.exitCode === null) supervisor.kill('SIGTERM');
  await exited;
  await rm(dir, { recursive: true, force: true });
});

describe('a member that restarts on request', () => {
  it('is replaced by a new process once per request id', async () => {
    const files = restartFiles(dir);
    const first = files.childPid();
    const result = requestRestart('drain-a');
    expect(result.status).toBe(0);
    const second = files.childPid();
    expect(second).not.toBe(first);
    expect(alive(first)).toBe(false);
    expect(alive(second)).toBe(true);

    // The same id again (a retry after a crash): nothing is restarted.
    expect(requestRestart('drain-a').status).toBe(0);
    expect(files.childPid()).toBe(second);

    expect(requestRestart('drain-b').status).toBe(0);
    expect(files.childPid()).not.toBe(second);
    expect(requestRestart('not an id').status).toBe(2);
  }, 60_000);

  it('stops with its child on SIGTERM', async () => {
    const child = restartFiles(dir).childPid();
    supervisor.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(alive(child)).toBe(false);
  });
});
