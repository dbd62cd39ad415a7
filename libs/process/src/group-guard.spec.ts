import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { startChildProcess, type ChildProcessHandle } from './child-process';
import { guardProcessGroup, startGuard } from './group-guard';
import { isAlive, waitUntil } from './__fixtures__/process-probes';

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));
const PARENT = fixture('guarded-parent.ts');
const RESOURCE_PARENT = fixture('guarded-resource.ts');
const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };

/** Pids of the guards watching `pgid` (their command line ends with the group kill). */
const guardsOf = (pgid: number): string[] => {
  try {
    return execFileSync('pgrep', ['-f', `process-group-guard kill -KILL -${pgid}$`])
      .toString()
      .trim()
      .split('\n');
  } catch {
    return [];
  }
};
const succeeds = (command: string, args: string[]) =>
  spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const isRoot = process.getuid?.() === 0;
const hasPodman = isRoot && succeeds('podman', ['--version']) && succeeds('runsc', ['--version']);
const asRoot = isRoot ? it : it.skip;
const withPodman = hasPodman ? it : it.skip;

const started: ChildProcessHandle[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => child.kill()));
});

/** Starts a fixture parent and waits for the first line it prints. */
async function startParent(entry: string, args: string[]): Promise<[ChildProcessHandle, string]> {
  const parent = startChildProcess(process.execPath, ['--import', 'tsx', entry, ...args], { env });
  started.push(parent);
  return [parent, await parent.waitForLine(() => true, 60_000)];
}

describe('the process-group guard', () => {
  it('kills a child and its descendants when their parent is SIGKILLed', async () => {
    const [parent, line] = await startParent(PARENT, []);
    const [child, grandchild] = line.split(' ').map(Number) as [number, number];
    expect([isAlive(child), isAlive(grandchild)]).toEqual([true, true]);
    expect(guardsOf(child)).toHaveLength(1);

    process.kill(parent.pid as number, 'SIGKILL');
    await waitUntil(() => !isAlive(child) && !isAlive(grandchild));
    await waitUntil(() => guardsOf(child).length === 0);
    await parent.exited;
  });

  it('still acts when the whole process group of the parent is SIGKILLed, as a test runner does to a worker', async () => {
    const [parent, line] = await startParent(PARENT, []);
    const [child, grandchild] = line.split(' ').map(Number) as [number, number];
    // The guard runs in a session of its own: the group kill cannot take it down with the parent.
    process.kill(-(parent.pid as number), 'SIGKILL');
    await waitUntil(() => !isAlive(child) && !isAlive(grandchild));
    await parent.exited;
  });

  it('is released when its child exits, and then kills nothing', async () => {
    const child = startChildProcess('sleep', ['0.2']);
    const pid = child.pid as number;
    expect(guardsOf(pid)).toHaveLength(1);
    await child.exited;
    await waitUntil(() => guardsOf(pid).length === 0);
  });

  it('refuses to guard a group id that would name this process group or every process', () => {
    for (const pgid of [0, 1, -5, Number.NaN]) expect(() => guardProcessGroup(pgid)).toThrow(RangeError);
  });
});

describe('a guard with a command as its end action', () => {
  it('runs the steps in order, each word as given, only once its owner is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'guard-steps-'));
    try {
      const out = join(dir, 'out');
      // The owner is a shell that keeps the pipe: the guard is started by a node child of it.
      const script = `
        const { startGuard } = await import(${JSON.stringify(fixture('../group-guard.ts'))});
        startGuard({ label: 'steps-guard', cwd: ${JSON.stringify(dir)}, steps: [
          ['sh', '-c', 'printf "%s|" "$@" >> out', 'x', 'a b', '$HOME', '*'],
          ['false'],
          ['sh', '-c', 'echo after-failure >> out'],
        ]});
        process.stdout.write('armed\\n');
        setInterval(() => undefined, 1000);`;
      const owner = startChildProcess(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        {
          env,
        },
      );
      started.push(owner);
      await owner.waitForLine((line) => line === 'armed', 60_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(readFile(out, 'utf8')).rejects.toThrow();
      await owner.kill();
      let text = '';
      await waitUntil(() => {
        void readFile(out, 'utf8').then(
          (value) => (text = value),
          () => undefined,
        );
        return text.includes('after-failure');
      });
      expect(text).toBe('a b|$HOME|*|after-failure\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stops at the first failing step when asked to', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'guard-steps-'));
    try {
      const guard = startGuard({
        label: 'steps-guard',
        cwd: dir,
        stopOnFailure: true,
        steps: [['false'], ['touch', 'never']],
      });
      // A released guard runs nothing: release only after checking nothing ran while armed.
      await new Promise((resolve) => setTimeout(resolve, 300));
      guard.release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(readFile(join(dir, 'never'))).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses an empty step', () => {
    expect(() => startGuard({ label: 'empty', steps: [[]] })).toThrow(RangeError);
  });
});

describe('guards of host resources, when their owner is SIGKILLed', () => {
  const name = (kind: string) => `guard-spec-${kind}-${process.pid}-${Date.now() % 100_000}`;

  withPodman(
    'removes a running container',
    async () => {
      const container = name('ctr');
      try {
        const [parent] = await startParent(RESOURCE_PARENT, ['container', container]);
        expect(succeeds('podman', ['container', 'exists', container])).toBe(true);
        process.kill(parent.pid as number, 'SIGKILL');
        await waitUntil(() => !succeeds('podman', ['container', 'exists', container]), 20_000);
      } finally {
        succeeds('podman', ['rm', '--force', '--time', '0', '--ignore', container]);
      }
    },
    90_000,
  );

  asRoot(
    'deletes a network namespace',
    async () => {
      const netns = name('ns');
      try {
        const [parent] = await startParent(RESOURCE_PARENT, ['netns', netns]);
        const list = () => execFileSync('ip', ['netns', 'list']).toString();
        expect(list()).toContain(netns);
        process.kill(parent.pid as number, 'SIGKILL');
        await waitUntil(() => !list().includes(netns));
      } finally {
        succeeds('ip', ['netns', 'delete', netns]);
      }
    },
    90_000,
  );

  asRoot(
    'removes an iptables chain',
    async () => {
      // iptables chain names have at most 28 characters.
      const chain = `GSPEC-${process.pid}-${Date.now() % 100_000}`;
      try {
        const [parent] = await startParent(RESOURCE_PARENT, ['chain', chain]);
        expect(succeeds('iptables', ['-w', '5', '-S', chain])).toBe(true);
        process.kill(parent.pid as number, 'SIGKILL');
        await waitUntil(() => !succeeds('iptables', ['-w', '5', '-S', chain]));
      } finally {
        if (succeeds('iptables', ['-w', '5', '-F', chain])) succeeds('iptables', ['-w', '5', '-X', chain]);
      }
    },
    90_000,
  );
});
