// The short soak CI runs: `npm run soak -- --minutes 2` with a fixed seed, as a user runs it (its own
// process, the stack inside it), and its report read back. A long soak is run by hand (README).
import { afterAll, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import { asRoot, describeRequiring, parentEnv } from '@sandbox/testing';
import type { SoakReport } from './soak-report';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const MINUTES = 2;
const SEED = '20261207';
/** Start-up (stack, images, apps), the soak itself, and the end checks and clean-up. */
const RUN_TIMEOUT_MS = (MINUTES + 8) * 60_000;

let dir = '';
let soak: ChildProcessHandle | undefined;

afterAll(async () => {
  await soak?.stop(60_000);
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describeRequiring(asRoot)('npm run soak (short, fixed seed)', () => {
  it(
    'injects faults, breaks no invariant, loses and doubles no winning ticket, and leaves nothing behind',
    async () => {
      dir = await mkdtemp(join(tmpdir(), 'soak-spec-'));
      const report = join(dir, 'report.json');
      soak = startChildProcess(
        process.execPath,
        [
          '--import',
          'tsx',
          'tools/soak/src/main.ts',
          '--minutes',
          String(MINUTES),
          '--seed',
          SEED,
          '--report',
          report,
        ],
        { cwd: ROOT, env: parentEnv() },
      );
      const timer = setTimeout(() => void soak?.stop(30_000), RUN_TIMEOUT_MS);
      const exit = await soak.exited.finally(() => clearTimeout(timer));
      const result = JSON.parse(await readFile(report, 'utf8')) as SoakReport;
      const injected = Object.values(result.faults).reduce((sum, kind) => sum + kind.injected, 0);
      const byKind = Object.entries(result.faults).map(([kind, faults]) => `${kind} ${faults.injected}`);
      process.stderr.write(
        `soak seed ${SEED}: faults ${byKind.join(', ')}; winners ${result.ledger?.produced ?? 0}\n`,
      );
      expect({
        startError: result.startError,
        interrupted: result.interrupted,
        violations: result.violations,
        leftovers: result.leftovers,
        lost: result.ledger?.lost ?? [],
        submittedTwice: result.ledger?.submittedTwice ?? [],
      }).toEqual({
        startError: undefined,
        interrupted: false,
        violations: [],
        leftovers: [],
        lost: [],
        submittedTwice: [],
      });
      expect(injected).toBeGreaterThan(0);
      expect(exit.code).toBe(0);
    },
    RUN_TIMEOUT_MS + 120_000,
  );
});
