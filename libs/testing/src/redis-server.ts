import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './free-port';
import {
  hasExited,
  spawnRedis,
  stopGuard,
  waitForExit,
  waitUntilServing,
  type RedisProcess,
} from './redis-process';

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** AOF persistence. @defaultValue true */
  appendonly?: boolean;
  /** AOF fsync policy. @defaultValue 'always' */
  appendfsync?: 'always' | 'everysec' | 'no';
  /** Eviction policy; anything but the default is for negative tests. @defaultValue 'noeviction' */
  maxmemoryPolicy?: string;
  /** How long start-up (and restart) may take before failing. @defaultValue 10000 */
  startTimeoutMs?: number;
  /** The server binary. @defaultValue 'redis-server' (from PATH) */
  executable?: string;
}

/** A real redis-server owned by one test file. */
export interface RedisFixture {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The server's data directory (AOF files, log), removed by {@link RedisFixture.stop}. */
  readonly dir: string;
  /** Kills the server with SIGKILL (no shutdown, no final fsync) and waits for it to be gone. */
  kill9(): Promise<void>;
  /** Starts the server again on the same port and data directory (stopping it first if running). */
  restart(): Promise<void>;
  /** Stops the server and removes its data directory. Safe to call twice. */
  stop(): Promise<void>;
}

const PORT_ATTEMPTS = 5;
const EXIT_TIMEOUT_MS = 5_000;

function serverArgs(port: number, dir: string, options: StartRedisOptions): string[] {
  return [
    ...['--port', String(port), '--bind', '127.0.0.1', '--protected-mode', 'yes', '--daemonize', 'no'],
    ...['--dir', dir, '--logfile', join(dir, 'redis.log'), '--save', ''],
    ...['--appendonly', options.appendonly === false ? 'no' : 'yes'],
    ...['--appendfsync', options.appendfsync ?? 'always'],
    ...['--maxmemory-policy', options.maxmemoryPolicy ?? 'noeviction'],
  ];
}

/** Starts and stops the one redis-server process of a fixture, always on the same directory. */
function serverProcess(dir: string, options: StartRedisOptions) {
  const executable = options.executable ?? 'redis-server';
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  let current: RedisProcess | undefined;

  const terminate = async (signal: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    const running = current;
    current = undefined;
    if (!running) return;
    if (!hasExited(running.child)) {
      running.child.kill(signal);
      await waitForExit(running.child, EXIT_TIMEOUT_MS).catch(async () => {
        running.child.kill('SIGKILL');
        await waitForExit(running.child, EXIT_TIMEOUT_MS);
      });
    }
    stopGuard(running);
  };
  const launch = async (port: number): Promise<void> => {
    await terminate('SIGTERM');
    current = spawnRedis(executable, serverArgs(port, dir, options), dir);
    try {
      await waitUntilServing(current, port, join(dir, 'redis.log'), timeoutMs);
    } catch (error) {
      await terminate('SIGKILL');
      throw error;
    }
  };
  return { launch, terminate };
}

/**
 * Starts a fresh redis-server on 127.0.0.1 with a free port and a new temporary data directory
 * (AOF on with `appendfsync always`, `noeviction`, no RDB snapshots), and waits until it answers
 * PING. Nothing global is registered: call `stop()` in `afterAll`. If this process dies without
 * stopping it, a watchdog process kills the server and removes its directory.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbox-redis-'));
  const server = serverProcess(dir, options);
  const port = await launchOnFreePort(server.launch).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    kill9: () => server.terminate('SIGKILL'),
    restart: () => server.launch(port),
    stop: async () => {
      await server.terminate('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// Another process may grab the port between probing and binding; then redis exits with
// "Address already in use" and we try another port.
async function launchOnFreePort(launch: (port: number) => Promise<void>): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await findFreePort();
    try {
      await launch(port);
      return port;
    } catch (error) {
      const inUse = error instanceof Error && /address already in use/i.test(error.message);
      if (!inUse || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}
