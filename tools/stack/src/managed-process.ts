import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** One member of the stack: a long-running child process with a readiness check. */
export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Resolves true once the process serves; polled until `readyTimeoutMs`. */
  isReady: () => Promise<boolean>;
  readyTimeoutMs?: number;
  /** What to print once it is ready, e.g. its URL. */
  banner?: string;
}

/** Writes one line of a child's output; the stack prefixes it with the child's name. */
export type LineSink = (name: string, line: string) => void;

export interface ManagedProcess {
  readonly spec: ProcessSpec;
  readonly exited: Promise<number | null>;
  waitReady(): Promise<void>;
  stop(graceMs: number): Promise<void>;
  /** Kills the whole process group at once; for when the stack itself is going away. */
  forceKill(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a child process, prefixing its output lines, and watches it until it exits. */
export function startProcess(spec: ProcessSpec, sink: LineSink): ManagedProcess {
  const child: ChildProcess = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a terminal's Ctrl-C reaches the stack first and it stops children in order.
    detached: true,
  });
  pipeLines(child.stdout, spec.name, sink);
  pipeLines(child.stderr, spec.name, sink);
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', (error) => {
      sink(spec.name, `could not start: ${error.message}`);
      resolve(null);
    });
    child.on('exit', (code) => resolve(code));
  });
  let done = false;
  void exited.then(() => (done = true));

  async function waitReady(): Promise<void> {
    const deadline = Date.now() + (spec.readyTimeoutMs ?? 30_000);
    while (!done && Date.now() < deadline) {
      if (await spec.isReady().catch(() => false)) return;
      await sleep(200);
    }
    throw new Error(done ? `${spec.name} exited before it was ready` : `${spec.name} was not ready in time`);
  }

  async function stop(graceMs: number): Promise<void> {
    if (done || child.pid === undefined) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), graceMs)),
    );
    const outcome = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout' && !done) {
      sink(spec.name, `did not stop within ${graceMs} ms; killing it`);
      process.kill(-child.pid, 'SIGKILL');
      await exited;
    }
  }

  function forceKill(): void {
    if (done || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  return { spec, exited, waitReady, stop, forceKill };
}

function pipeLines(stream: Readable | null, name: string, sink: LineSink): void {
  if (!stream) return;
  createInterface({ input: stream }).on('line', (line) => sink(name, line));
}
