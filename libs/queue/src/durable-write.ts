import { DurabilityUnavailableError, DurableWriteTimeoutError } from './errors';
import { configGet, serverVersion, supportsWaitaof, type RedisCommandClient } from './redis-info';

/**
 * How writes are made durable: `waitaof` asks the server to confirm the local AOF fsync
 * (`WAITAOF 1 0`); `fsync-always` relies on `appendfsync always`, where Redis fsyncs the AOF before
 * it sends the reply of a write.
 */
export type DurabilityMode = 'waitaof' | 'fsync-always';

/** Options of {@link createDurableWriter}. */
export interface DurableWriterOptions {
  /** WAITAOF timeout; past it the write counts as not durable. @defaultValue 1000 */
  waitaofTimeoutMs?: number;
}

/** Runs writes that return only once they are on disk. */
export interface DurableWriter<C extends RedisCommandClient> {
  /**
   * Checks (once; a success is cached) how this server can confirm durability. Throws
   * {@link DurabilityUnavailableError} when it cannot. Call it at start-up to refuse early.
   */
  check(): Promise<DurabilityMode>;
  /**
   * Runs `fn`, which must issue its writes on the given connection (WAITAOF covers only this
   * connection's writes), then returns its result only once those writes are on disk. Throws
   * {@link DurableWriteTimeoutError} if the fsync is not confirmed in time. On failure the write may
   * still have happened, so writes should be idempotent.
   */
  write<T>(fn: (redis: C) => Promise<T>): Promise<T>;
}

/**
 * Creates a durable writer over one connection. Uses WAITAOF where the server has it (Redis >= 7.2);
 * otherwise requires `appendfsync always` and refuses when it is not set (Debian's Redis 7.0 has no
 * WAITAOF). Either way AOF must be on. The configuration is read with CONFIG GET; a change made
 * after the first successful check is not seen.
 */
export function createDurableWriter<C extends RedisCommandClient>(
  redis: C,
  options: DurableWriterOptions = {},
): DurableWriter<C> {
  const timeoutMs = options.waitaofTimeoutMs ?? 1_000;
  let mode: DurabilityMode | undefined;

  const check = async (): Promise<DurabilityMode> => {
    mode ??= await detectMode(redis);
    return mode;
  };

  return {
    check,
    async write(fn) {
      const current = await check();
      const result = await fn(redis);
      if (current === 'waitaof') await confirmFsync(redis, timeoutMs);
      return result;
    },
  };
}

async function detectMode(redis: RedisCommandClient): Promise<DurabilityMode> {
  const [appendonly, appendfsync, waitaof] = await Promise.all([
    configGet(redis, 'appendonly'),
    configGet(redis, 'appendfsync'),
    supportsWaitaof(redis),
  ]);
  if (appendonly !== 'yes') {
    throw new DurabilityUnavailableError(
      `Redis cannot make writes durable: AOF is off (appendonly '${appendonly ?? 'unknown'}'). ` +
        `Fix: set "appendonly yes" in redis.conf, or run CONFIG SET appendonly yes.`,
    );
  }
  if (waitaof) return 'waitaof';
  if (appendfsync === 'always') return 'fsync-always';
  const version = await serverVersion(redis);
  throw new DurabilityUnavailableError(
    `Redis ${version} has no WAITAOF, so durable writes need "appendfsync always", but appendfsync is ` +
      `'${appendfsync ?? 'unknown'}'. Fix: set "appendfsync always" in redis.conf (or CONFIG SET ` +
      `appendfsync always), or run Redis >= 7.2.`,
  );
}

async function confirmFsync(redis: RedisCommandClient, timeoutMs: number): Promise<void> {
  const reply = await redis.call('WAITAOF', 1, 0, timeoutMs);
  const local = Array.isArray(reply) ? Number(reply[0]) : 0;
  if (!(local >= 1)) {
    throw new DurableWriteTimeoutError(`Redis did not confirm the AOF fsync within ${timeoutMs} ms`);
  }
}
