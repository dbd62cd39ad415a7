// The adapter's main.ts as a real child process, for process-level specs and the benchmark.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/** A running `main.ts`. */
export interface AdapterProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>;
  kill(signal: NodeJS.Signals): Promise<number | string>;
}

/**
 * Spawns `node --import tsx apps/adapter/src/main.ts` (or plain `node <bundle>` when a bundle is
 * given) with exactly `env` (nothing inherited; no drain delay unless `env` sets one).
 */
export function spawnAdapter(
  env: Record<string, string>,
  options: { bundle?: string; nodeArgs?: string[] } = {},
): AdapterProcess {
  const entry = options.bundle === undefined ? ['--import', 'tsx', MAIN] : [options.bundle];
  const args = [...(options.nodeArgs ?? []), ...entry];
  const child = spawn(process.execPath, args, {
    env: { DRAIN_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | string>((resolve) => {
    child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return {
    child,
    output: () => out,
    exited,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Bundles main.ts and its dependencies into one ESM file (what a production image would run). */
export async function bundleAdapter(outfile: string): Promise<string> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [MAIN],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    outfile,
    // Some dependencies are CommonJS and call require() for Node built-ins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}
