import { isRedisUnavailableError } from './connection';
import { QueueUnavailableError } from './errors';

/**
 * Runs `work` against Redis; a Redis that cannot answer now (down, loading, refusing writes) becomes
 * `QueueUnavailableError('Redis is unavailable')`, which an HTTP service answers with 503
 * `unavailable`. Every other error passes through.
 */
export async function orRedisUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isRedisUnavailableError(error))
      throw new QueueUnavailableError('Redis is unavailable', { cause: error });
    throw error;
  }
}
