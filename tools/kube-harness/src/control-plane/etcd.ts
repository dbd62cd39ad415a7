import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnGuarded, type GuardedProcess } from './guarded-process';

/** Options of {@link startEtcd}. */
export interface StartEtcdOptions {
  binary: string;
  /** The harness's temporary directory; etcd's data goes in `etcd/` inside it. */
  dir: string;
  clientPort: number;
  peerPort: number;
  /** @defaultValue 30000 */
  startTimeoutMs?: number;
}

/** A running single-member etcd on plain HTTP loopback. */
export interface EtcdProcess {
  readonly url: string;
  readonly process: GuardedProcess;
}

/** GET /health; true only on `"health":"true"`. */
export function etcdHealthy(url: string, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${url}/health`, { timeout: timeoutMs, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(res.statusCode === 200 && /"health"\s*:\s*"true"/.test(body)));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Polls until `healthy()` or the process exits or the deadline passes, with the log tail on failure. */
export async function waitUntilHealthy(
  name: string,
  process: GuardedProcess,
  healthy: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (process.hasExited()) throw new Error(`${name} exited during start-up: ${await process.logTail()}`);
    if (await healthy()) return;
    if (Date.now() > deadline) {
      await process.kill();
      throw new Error(`${name} was not healthy within ${timeoutMs} ms: ${await process.logTail()}`);
    }
    await sleep(100);
  }
}

/**
 * Starts etcd as one member listening on 127.0.0.1 only. fsync is off: the data is a test's
 * throwaway state, and fsync on a shared CI disk is what makes etcd slow.
 */
export async function startEtcd(options: StartEtcdOptions): Promise<EtcdProcess> {
  const url = `http://127.0.0.1:${options.clientPort}`;
  const peer = `http://127.0.0.1:${options.peerPort}`;
  const process = spawnGuarded({
    executable: options.binary,
    cwd: options.dir,
    logFile: join(options.dir, 'etcd.log'),
    orphanDir: options.dir,
    args: [
      ...['--name', 'harness', '--data-dir', join(options.dir, 'etcd')],
      ...['--listen-client-urls', url, '--advertise-client-urls', url],
      ...['--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer],
      ...['--initial-cluster', `harness=${peer}`, '--initial-cluster-state', 'new'],
      ...['--unsafe-no-fsync', '--log-level', 'warn'],
    ],
  });
  await waitUntilHealthy('etcd', process, () => etcdHealthy(url), options.startTimeoutMs ?? 30_000);
  return { url, process };
}
