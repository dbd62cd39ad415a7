import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The published version of the official Python SDK (livepeer-gateway) our interop tests target. */
export const SDK_PACKAGE = 'livepeer-gateway==1.0.0';

function runs(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore' });
  return result.status === 0;
}

/** A Python 3.12 interpreter: on PATH, or from pyenv; otherwise any python3 (the SDK then installs without its version pin). */
export function findPython(): { python: string; exact312: boolean } {
  if (runs('python3.12', ['--version'])) return { python: 'python3.12', exact312: true };
  const pyenv = join(homedir(), '.pyenv', 'versions');
  if (existsSync(pyenv)) {
    for (const version of readdirSync(pyenv)
      .filter((name) => name.startsWith('3.12'))
      .sort()
      .reverse()) {
      const candidate = join(pyenv, version, 'bin', 'python3.12');
      if (runs(candidate, ['--version'])) return { python: candidate, exact312: true };
    }
  }
  if (runs('python3', ['--version'])) return { python: 'python3', exact312: false };
  throw new Error('no python3 interpreter found; the Python SDK interop test needs one');
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 600_000 });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`,
    );
  }
}

/**
 * A virtual environment outside the repository (under the user's cache) with the official Python SDK
 * from PyPI. Created once and reused; returns the venv's python.
 */
export function ensureSdkVenv(): string {
  const root = join(homedir(), '.cache', 'sandbox-runtime', 'python-sdk-venv');
  const python = join(root, 'bin', 'python');
  if (existsSync(python) && runs(python, ['-c', 'import livepeer_gateway'])) return python;
  mkdirSync(root, { recursive: true });
  const { python: base, exact312 } = findPython();
  run(base, ['-m', 'venv', '--clear', root]);
  const pip = [python, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check'];
  if (exact312) run(pip[0] ?? python, [...pip.slice(1), SDK_PACKAGE]);
  else {
    // The SDK declares Python >= 3.12 but 1.0.0 uses no 3.12-only syntax.
    run(pip[0] ?? python, [...pip.slice(1), 'aiohttp', 'av', 'grpcio', 'protobuf']);
    run(pip[0] ?? python, [...pip.slice(1), '--no-deps', '--ignore-requires-python', SDK_PACKAGE]);
  }
  return python;
}
