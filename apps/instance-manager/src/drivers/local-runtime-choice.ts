import { chooseRuntime, ensureRunscBuild, findCachedRunsc, runCommand } from '@sandbox/sandbox-local';
import type { CommandRunner, RuntimeCandidate } from '@sandbox/sandbox-local';
import type { Logger } from 'pino';

/** Debian's runsc (release 20221219): ptrace only, the fallback. */
export const DEBIAN_RUNSC: RuntimeCandidate = Object.freeze({ runscPath: 'runsc', runtimeFlags: [] });

/** Dependencies of {@link chooseLocalRuntime}, injectable for tests. */
export interface RuntimeChoiceDeps {
  logger: Pick<Logger, 'info' | 'warn'>;
  run?: CommandRunner;
  findCached?: typeof findCachedRunsc;
  build?: typeof ensureRunscBuild;
  choose?: typeof chooseRuntime;
}

async function systrapPath(build: boolean, deps: RuntimeChoiceDeps): Promise<string | undefined> {
  try {
    const found = build
      ? await (deps.build ?? ensureRunscBuild)({ logger: deps.logger as Logger })
      : await (deps.findCached ?? findCachedRunsc)();
    return found?.path;
  } catch (error) {
    deps.logger.warn({ err: error }, 'building runsc failed');
    return undefined;
  }
}

/**
 * Which runsc the local driver uses. The current gVisor with the systrap platform serves 1.25-1.7 times
 * the requests per CPU-second of Debian's ptrace-only runsc on this kind of VM (libs/sandbox-local/README.md), so
 * `auto` prefers it when it is cached (or built, with `build`) and passes a canary sandbox, and falls
 * back to Debian's. Throws when no candidate can run a sandbox.
 */
export async function chooseLocalRuntime(
  mode: 'auto' | 'systrap' | 'debian',
  build: boolean,
  deps: RuntimeChoiceDeps,
): Promise<RuntimeCandidate> {
  const candidates: RuntimeCandidate[] = [];
  if (mode !== 'debian') {
    const path = await systrapPath(build, deps);
    if (path) candidates.push({ runscPath: path, runtimeFlags: ['platform=systrap'] });
    else deps.logger.warn({ mode }, 'no runsc build with systrap is cached');
  }
  if (mode !== 'systrap') candidates.push(DEBIAN_RUNSC);
  const chosen = await (deps.choose ?? chooseRuntime)(deps.run ?? runCommand, candidates);
  if (!chosen) throw new Error('no runsc candidate can run a sandbox on this host');
  deps.logger.info({ runsc: chosen.runscPath, flags: chosen.runtimeFlags }, 'gVisor runtime chosen');
  return chosen;
}
