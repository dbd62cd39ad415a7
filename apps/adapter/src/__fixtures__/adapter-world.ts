// The setup most adapter specs share: real Redis, the simulator behind its fault proxy (world.ts), the
// queues around the adapter, and the adapter itself in-process; `close` stops them in reverse.
import { startRedis, type RedisFixture } from '@sandbox/testing';
import { openQueues, startAdapter, type AdapterHarness, type AdapterQueues } from './adapter-harness';
import { startSimWorld, type SimWorld } from './world';

/** A spec's running parts. */
export interface AdapterWorld {
  readonly redis: RedisFixture;
  readonly world: SimWorld;
  readonly adapter: AdapterHarness;
  readonly queues: AdapterQueues;
  close(): Promise<void>;
}

export interface AdapterWorldOptions {
  /** Queue prefix of this spec (`uniquePrefix(...)`). */
  prefix: string;
  sim: Parameters<typeof startSimWorld>[0];
  /** Extra adapter environment (on top of the harness's). */
  adapterEnv?: Record<string, string>;
}

/** Starts Redis, the simulator world, the queues and the adapter; a failed start stops what it started. */
export async function startAdapterWorld(options: AdapterWorldOptions): Promise<AdapterWorld> {
  const stops: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const redis = await startRedis();
    stops.push(() => redis.stop());
    const world = await startSimWorld(options.sim);
    stops.push(() => world.close());
    const queues = openQueues(redis.url, options.prefix);
    stops.push(() => queues.close());
    const adapter = await startAdapter({
      redisUrl: redis.url,
      nodeUrl: world.proxy.url,
      secretFile: world.secretFile,
      prefix: options.prefix,
      ...(options.adapterEnv === undefined ? {} : { env: options.adapterEnv }),
    });
    stops.push(() => adapter.stop());
    return { redis, world, adapter, queues, close };
  } catch (error) {
    await close();
    throw error;
  }
}
