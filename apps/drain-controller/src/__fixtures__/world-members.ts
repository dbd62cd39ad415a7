// The processes of a drain spec's world, started in order: Redis, an SSE instance backend, the Node
// simulator under a restart-on-request supervisor and the real adapter. A start that fails half-way
// stops what it started, so no simulator or adapter outlives the spec.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort, startRedis, waitFor, type RedisFixture } from '@sandbox/testing';
import type { TestKit } from './drain-world';
import { ADAPTER_MAIN, spawnChild, startSupervisedSim, type Child, type SupervisedSim } from './processes';
import { startSseBackend, type SseBackend } from './sse-backend';

/** What {@link startWorldMembers} started; `stop` ends it all in reverse order. */
export interface WorldMembers {
  readonly prefix: string;
  readonly secret: string;
  readonly redis: RedisFixture;
  readonly backend: SseBackend;
  readonly sim: SupervisedSim;
  readonly adapterUrl: string;
  /** The adapter's STATE_PREFIX (its sessions view is under it). */
  readonly adapterStatePrefix: string;
  /** kill -9 of the adapter (its whole process group); it stays down until {@link restartAdapter}. */
  killAdapter(): Promise<void>;
  /** Starts the adapter again, as its supervisor would, and waits until it is ready. */
  restartAdapter(): Promise<void>;
  /** The kit's base environment plus `env` (what every child gets). */
  childEnv(env: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

const httpReady = (url: string) => () =>
  fetch(url)
    .then((response) => response.ok)
    .catch(() => false);

export async function startWorldMembers(
  name: string,
  kit: TestKit,
  heartbeat: { interval: string; ttl: string } | undefined,
): Promise<WorldMembers> {
  const childEnv = (env: Record<string, string>) => ({ ...kit.baseEnv, ...env });
  const prefix = `${name}-${randomBytes(4).toString('hex')}`;
  const adapterStatePrefix = `${prefix}-adapter`;
  const dir = await mkdtemp(join(tmpdir(), 'drain-spec-'));
  const secretFile = join(dir, 'bootstrap-secret');
  const secret = `canary-bootstrap-${randomBytes(12).toString('hex')}`;
  await writeFile(secretFile, secret, { mode: 0o600 });
  const redis = await startRedis();
  const backend = await startSseBackend();
  const [port, metricsPort, adapterPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
  const sim = startSupervisedSim({
    stateDir: join(dir, 'node-sim'),
    ...{ port, metricsPort, secretFile, baseEnv: kit.baseEnv },
    runnerGrants: [`127.0.0.1:${backend.port}`],
    ...(heartbeat === undefined ? {} : { heartbeat }),
  });
  const started: Child[] = [sim.process];
  const stop = async (): Promise<void> => {
    for (const child of started.reverse()) await child.kill('SIGTERM');
    await backend.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  };
  const orCleanUp = async (ready: Promise<unknown>): Promise<void> => {
    try {
      await ready;
    } catch (error) {
      await stop();
      throw error;
    }
  };
  const ready = (url: string, description: string) =>
    orCleanUp(waitFor(httpReady(url), { description, timeoutMs: 60_000, intervalMs: 100 }));
  await ready(`${sim.metricsUrl}/readyz`, 'node-sim ready');
  const adapterEnv = childEnv({
    ...kit.access.env,
    REDIS_URL: redis.url,
    NODE_URL: sim.publicUrl,
    BOOTSTRAP_SECRET_FILE: secretFile,
    QUEUE_PREFIX: prefix,
    STATE_PREFIX: adapterStatePrefix,
    PORT: String(adapterPort),
    LOG_LEVEL: 'warn',
    COMMAND_TIMEOUT_MS: '20000',
  });
  let adapter = spawnChild(['--import', 'tsx', ADAPTER_MAIN], adapterEnv);
  started.push(adapter);
  const adapterUrl = `http://127.0.0.1:${adapterPort}`;
  await ready(`${adapterUrl}/readyz`, 'adapter ready');
  const killAdapter = () => adapter.kill('SIGKILL');
  const restartAdapter = async () => {
    adapter = spawnChild(['--import', 'tsx', ADAPTER_MAIN], adapterEnv);
    started.push(adapter);
    await waitFor(httpReady(`${adapterUrl}/readyz`), {
      description: 'adapter ready again',
      timeoutMs: 60_000,
      intervalMs: 100,
    });
  };
  return {
    ...{ prefix, secret, redis, backend, sim, adapterUrl, adapterStatePrefix, childEnv, stop },
    ...{ killAdapter, restartAdapter },
  };
}
