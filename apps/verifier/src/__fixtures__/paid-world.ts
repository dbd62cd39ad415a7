import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort, startRedis, uniquePrefix, type RedisFixture } from '@sandbox/testing';
import { registerRunner, startPaidNodeSim, startResponderProcess, type ChildHandle } from './processes';

/** What the verifier's integration specs run against: Redis, one eval-responder, the paid Node simulator. */
export interface PaidWorld {
  readonly redis: RedisFixture;
  /** A temporary folder, removed by `close`. */
  readonly dir: string;
  readonly bootstrap: string;
  readonly responder: ChildHandle;
  readonly responderUrl: string;
  readonly node: Awaited<ReturnType<typeof startPaidNodeSim>>;
  /** The verifier's `QUEUE_PREFIX` in {@link PaidWorld.verifierEnv}. */
  readonly queuePrefix: string;
  /** Registers a runner with the simulator (at the responder unless `url` says otherwise). */
  register(runner: Omit<Parameters<typeof registerRunner>[2], 'url'> & { url?: string }): Promise<string>;
  /**
   * The verifier's environment on this world: its Redis and prefixes, Node's URL, a plan short enough
   * for a spec (a 40-share hash challenge at 8 bits, 0.3 s transfers); `overrides` win.
   */
  verifierEnv(overrides?: Record<string, string>): Record<string, string>;
  /** Stops the simulator, the responder and Redis, and removes the folder. */
  close(): Promise<void>;
}

export interface PaidWorldOptions {
  /** Names the prefixes and the folder. */
  name: string;
  /** Node's bootstrap credential (each spec its own, so a leak check can look for it). */
  bootstrap: string;
  /** Further `host:port` runner addresses the simulator accepts (the responder's is always granted). */
  grants?: string[];
  /** Further simulator arguments; runs after the folder exists, so it may write files there. */
  nodeArgs?: (dir: string) => Promise<string[]> | string[];
}

/** Starts a {@link PaidWorld}. */
export async function openPaidWorld(options: PaidWorldOptions): Promise<PaidWorld> {
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), `verifier-${options.name}-`));
  await writeFile(join(dir, 'bootstrap'), options.bootstrap);
  const responderPort = await findFreePort();
  const responderUrl = `http://127.0.0.1:${responderPort}`;
  const responder = await startResponderProcess(responderPort);
  const node = await startPaidNodeSim({
    port: await findFreePort(),
    metricsPort: await findFreePort(),
    bootstrapFile: join(dir, 'bootstrap'),
    grants: [`127.0.0.1:${responderPort}`, ...(options.grants ?? [])],
    extraArgs: options.nodeArgs ? await options.nodeArgs(dir) : undefined,
  });
  const prefix = uniquePrefix(`v${options.name}`);
  return {
    redis,
    dir,
    bootstrap: options.bootstrap,
    responder,
    responderUrl,
    node,
    queuePrefix: prefix,
    register: (runner) => registerRunner(node.url, options.bootstrap, { url: responderUrl, ...runner }),
    verifierEnv: (overrides = {}) => ({
      REDIS_URL: redis.url,
      QUEUE_PREFIX: prefix,
      KEY_PREFIX: `${prefix}:v`
        .toLowerCase()
        .replace(/[^a-z0-9:_-]/gu, '-')
        .slice(0, 40),
      NODE_URL: node.url,
      SIGNER_URL: node.url,
      TRANSFER_SECONDS: '0.3',
      WARMUP_SECONDS: '0.1',
      HASH_SHARES: '40',
      HASH_DIFFICULTY_BITS: '8',
      PAYMENT_INTERVAL_MS: '250',
      ...overrides,
    }),
    async close() {
      await Promise.all([node.stop(), responder.stop()]);
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
