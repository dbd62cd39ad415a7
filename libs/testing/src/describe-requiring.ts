import { spawnSync } from 'node:child_process';
import { requireAllTests } from './config';

// `describe` and `it` are Jest's globals here, not imports from @jest/globals: this library is also
// loaded by benches and tools outside Jest, where that import fails; these functions run only in specs.

/** Something a suite needs from the machine; `missing` names it in the skip or failure message. */
export interface Requirement {
  readonly met: boolean;
  readonly missing: string;
}

/** The process runs as root (network namespaces, iptables, the local gVisor driver). */
export const asRoot: Requirement = { met: process.getuid?.() === 0, missing: 'root' };

/** A command that answers `args` with exit status 0 within 30 s. */
export function commandWorks(command: string, args: readonly string[], missing: string): Requirement {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return { met: result.status === 0, missing };
}

/** A Go toolchain on PATH (the harness's kube-apiserver, etcd and runsc are built with it). */
export const goOnPath = (): Requirement => commandWorks('go', ['version'], 'a Go toolchain (go on PATH)');

/** What a suite does on this machine: run, skip (saying why) or fail (naming what is missing). */
export type SuitePlan = { kind: 'run' } | { kind: 'skip' | 'fail'; needs: string };

/**
 * Where every test must run (`.ci/run`), a missing requirement fails its suite instead of skipping
 * it; on a developer's machine without root or a tool, the suite skips and says why.
 */
export function suitePlan(requirements: readonly Requirement[], requireAll = requireAllTests()): SuitePlan {
  const missing = requirements.filter((requirement) => !requirement.met).map((r) => r.missing);
  if (missing.length === 0) return { kind: 'run' };
  const needs = missing.join(' and ');
  return { kind: requireAll ? 'fail' : 'skip', needs };
}

/**
 * `describe` for a suite that needs `requirements`: the suite itself when all are met; otherwise a
 * skipped suite with a line on stderr, or, where every test must run, one
 * failing test naming what is missing.
 */
export function describeRequiring(...requirements: Requirement[]): typeof describe {
  const plan = suitePlan(requirements);
  if (plan.kind === 'run') return describe;
  return Object.assign((name: string, fn: () => void) => {
    if (plan.kind === 'fail') {
      describe(name, () => {
        it(`has what it needs (${plan.needs})`, () => {
          throw new Error(`"${name}" needs ${plan.needs}, and this run forbids skipping`);
        });
      });
      return;
    }
    process.stderr.write(`SKIPPED "${name}": needs ${plan.needs}\n`);
    describe.skip(name, fn);
  }, describe);
}

/** `it` for one test that needs `requirements`, with the same rule as {@link describeRequiring}. */
export function itRequiring(...requirements: Requirement[]): typeof it {
  const plan = suitePlan(requirements);
  if (plan.kind === 'run') return it;
  return Object.assign((name: string, fn?: () => unknown, timeout?: number) => {
    if (plan.kind === 'fail') {
      it(name, () => {
        throw new Error(`"${name}" needs ${plan.needs}, and this run forbids skipping`);
      });
      return;
    }
    process.stderr.write(`SKIPPED "${name}": needs ${plan.needs}\n`);
    it.skip(name, fn as () => void, timeout);
  }, it);
}
