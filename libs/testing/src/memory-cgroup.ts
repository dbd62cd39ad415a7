import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const CGROUP_ROOT = '/sys/fs/cgroup';

/** A memory cgroup of this machine with a limit, for a child that must see its pod's limit. */
export interface MemoryCgroup {
  readonly path: string;
  /**
   * The command line that runs `command args` inside the cgroup: a shell joins it, then execs the
   * command, so the child's pid is the command's and its memory limit holds from its first byte.
   */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  /** Removes the cgroup once its processes have exited (retrying briefly while they go). */
  remove(): Promise<void>;
}

/** This process's path in a cgroup hierarchy (`memory` for v1, the unified one for v2). */
function ownPath(controller: string | undefined): string {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  for (const line of lines) {
    const [, controllers = '', path = '/'] = line.split(':');
    if (controller === undefined ? controllers === '' : controllers.split(',').includes(controller))
      return path;
  }
  throw new Error(`no ${controller ?? 'unified'} cgroup in /proc/self/cgroup`);
}

/** Where a new memory cgroup goes and the file that sets its limit. */
async function placement(): Promise<{ parent: string; limitFile: string }> {
  const v1 = join(CGROUP_ROOT, 'memory');
  if (existsSync(join(v1, 'memory.limit_in_bytes'))) {
    return { parent: join(v1, ownPath('memory')), limitFile: 'memory.limit_in_bytes' };
  }
  const controllers = join(CGROUP_ROOT, 'cgroup.controllers');
  if (existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/u).includes('memory')) {
    const parent = join(CGROUP_ROOT, ownPath(undefined));
    // cgroup v2 lets children limit memory only once their parent delegates the controller.
    await writeFile(join(parent, 'cgroup.subtree_control'), '+memory').catch((error: unknown) => {
      throw new Error(`cannot delegate the memory controller below ${parent}`, { cause: error });
    });
    return { parent, limitFile: 'memory.max' };
  }
  throw new Error('this machine has no memory cgroup controller to give a child a memory limit');
}

/** Creates a memory cgroup limited to `limitBytes` under this process's own (root needed). */
export async function createMemoryCgroup(limitBytes: number, name: string): Promise<MemoryCgroup> {
  const { parent, limitFile } = await placement();
  const path = join(parent, `${name}-${process.pid}-${Date.now()}`);
  await mkdir(path);
  try {
    await writeFile(join(path, limitFile), String(limitBytes));
  } catch (error) {
    await rmdir(path);
    throw error;
  }
  return {
    path,
    wrap: (command, args) => ({
      command: '/bin/sh',
      args: ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', path, command, ...args],
    }),
    async remove() {
      for (let attempt = 0; ; attempt += 1) {
        try {
          await rmdir(path);
          return;
        } catch (error) {
          // EBUSY while an exited child's last pages are still being uncharged.
          if (attempt >= 50 || (error as NodeJS.ErrnoException).code !== 'EBUSY') throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
  };
}
