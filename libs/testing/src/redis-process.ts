import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { killGroupSteps, startGuard, type Guard } from '@sandbox/process';

/** A running redis-server and the guard that kills it if this Node process dies. */
export interface RedisProcess {
  readonly child: ChildProcess;
  readonly guard: Guard;
  readonly stderr: () => string;
}

/**
 * Spawns redis-server with the given arguments and data directory, in a process group of its own,
 * plus its guard (see `@sandbox/process`): if this process dies in any way, SIGKILL included, the
 * guard kills redis's group and then removes the temporary data directory. Handles are unref'd so a
 * forgotten fixture does not keep Node alive (the guard cleans up after it).
 */
export function spawnRedis(executable: string, args: string[], dir: string): RedisProcess {
  const child = spawn(executable, args, { cwd: dir, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  // Reported through exitCode / the startup check; without a listener a spawn error would throw.
  child.on('error', (error) => {
    stderr += `\nspawn failed: ${error.message}`;
  });
  if (child.pid === undefined) throw new Error(`could not start ${executable}: is redis-server installed?`);
  const guard = startGuard({
    label: 'redis-guard',
    // The pause lets the killed server's files close before the directory goes.
    steps: [...killGroupSteps(child.pid), ['sleep', '0.2'], ['rm', '-rf', '--', dir]],
  });
  child.unref();
  (child.stderr as Socket | null)?.unref();
  return { child, guard, stderr: () => stderr };
}

/** True once the process has exited (or never started). */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

/** Resolves when the process has exited; rejects after `timeoutMs` (a ref'd timer keeps Node alive). */
export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server pid ${child.pid} did not exit`)),
      timeoutMs,
    );
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Stops the watchdog without letting it kill anything (it is killed before its stdin closes). */
export function stopGuard(redis: RedisProcess): void {
  redis.guard.release();
}

/** Sends PING over a raw socket; true only on `+PONG` (a loading server answers `-LOADING`). */
export function ping(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

/**
 * Waits until the server answers PING. Fails early, with its stderr and log tail, if it exits.
 */
export async function waitUntilServing(
  redis: RedisProcess,
  port: number,
  logFile: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (hasExited(redis.child)) {
      throw new Error(`redis-server exited during start-up: ${await describeFailure(redis, logFile)}`);
    }
    if (await ping(port)) return;
    if (Date.now() > deadline) {
      throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
    }
    await sleep(20);
  }
}

async function describeFailure(redis: RedisProcess, logFile: string): Promise<string> {
  const log = await readFile(logFile, 'utf8').catch(() => '');
  return `${redis.stderr()}\n${log.slice(-2_000)}`.trim() || `exit code ${redis.child.exitCode}`;
}
