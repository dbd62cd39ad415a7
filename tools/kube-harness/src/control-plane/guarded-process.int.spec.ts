import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentEnv, startTsProcess, waitFor } from '@sandbox/testing';
import { spawnGuarded } from './guarded-process';

const FIXTURE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'test-support',
  'orphan-sleep.fixture.ts',
);
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('guarded processes', () => {
  it('stops the program, keeps its log, and leaves the directory to the caller', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'guarded-'));
    try {
      const guarded = spawnGuarded({
        executable: '/bin/sh',
        args: ['-c', 'echo started; exec sleep 600'],
        cwd: dir,
        logFile: join(dir, 'out.log'),
        orphanDir: dir,
      });
      await waitFor(async () => (await guarded.logTail()).includes('started'), {
        description: 'the log line',
      });
      await guarded.stop();
      expect(guarded.hasExited()).toBe(true);
      expect(await exists(`/proc/${guarded.child.pid}`)).toBe(false);
      // The watchdog was disarmed, not fired: the directory is still there a while later.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await exists(dir)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('kills the program and removes its directory when the owning process dies', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'guarded-'));
    const owner = startTsProcess(FIXTURE, [dir], { env: parentEnv() });
    const pid = Number(await owner.waitForLine(() => true, 20_000));
    expect(await exists(`/proc/${pid}`)).toBe(true);
    // The owner alone, as a crash of the test process would: its watchdog must do the rest.
    owner.signal('SIGKILL');
    await waitFor(async () => !(await exists(`/proc/${pid}`)) && !(await exists(dir)), {
      description: 'the watchdog to kill sleep and remove the directory',
      timeoutMs: 10_000,
      intervalMs: 50,
    });
  }, 30_000);
});
