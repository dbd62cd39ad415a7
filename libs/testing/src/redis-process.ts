import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A running redis-server and the watchdog that kills it if this Node process dies. */
export interface RedisProcess {
  readonly child: ChildProcess;
  readonly guard: ChildProcess;
  readonly stderr: () => string;
}

// The watchdog is one `sh` reading its stdin, a pipe from this process. When this process dies in
// any way (even SIGKILL), the pipe closes, `read` sees end-of-file and the watchdog kills redis
// (checking the pid still names a redis-server, in case redis died first and the pid was reused),
// then removes the temporary data directory.
const GUARD_SCRIPT = [
  'while read -r _; do :; done',
  '[ "$(cat /proc/$1/comm 2>/dev/null)" = redis-server ] && kill -9 "$1"',
  'sleep 0.2; rm -rf -- "$2"',
].join('; ');

/**
 * Spawns redis-server with the given arguments and data directory, plus its watchdog. Handles are
 * unref'd so a forgotten fixture does not keep Node alive (the watchdog cleans up after it).
 */
export function spawnRedis(executable: string, args: string[], dir: string): RedisProcess {
  const child = spawn(executable, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  // Reported through exitCode / the startup check; without a listener a spawn error would throw.
  child.on('error', (error) => {
    stderr += `\nspawn failed: ${error.message}`;
  });
  // Never hand the watchdog a missing pid: `kill -9 0` would hit this whole process group.
  if (child.pid === undefined) throw new Error(`could not start ${executable}: is redis-server installed?`);
  const guard = spawn('sh', ['-c', GUARD_SCRIPT, 'redis-guard', String(child.pid), dir], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  guard.on('error', () => undefined);
  for (const handle of [child, guard]) handle.unref();
  for (const stream of [child.stderr, guard.stdin]) (stream as Socket | null)?.unref();
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
  redis.guard.kill('SIGKILL');
  redis.guard.stdin?.destroy();
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
