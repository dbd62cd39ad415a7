import { describe, expect, it } from '@jest/globals';
import { isRedisUnavailableError } from './connection';

describe('isRedisUnavailableError', () => {
  it('recognises connection failures and "not now" replies', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(isRedisUnavailableError(refused)).toBe(true);
    expect(
      isRedisUnavailableError(new Error("Stream isn't writeable and enableOfflineQueue options is false")),
    ).toBe(true);
    expect(isRedisUnavailableError(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisUnavailableError(new Error('LOADING Redis is loading the dataset in memory'))).toBe(true);
    expect(
      isRedisUnavailableError(new Error("OOM command not allowed when used memory > 'maxmemory'.")),
    ).toBe(true);
  });

  it('leaves programming errors alone', () => {
    expect(isRedisUnavailableError(new Error('Custom Ids cannot be integers'))).toBe(false);
    expect(isRedisUnavailableError(new Error('ERR wrong number of arguments'))).toBe(false);
    expect(isRedisUnavailableError('ECONNREFUSED')).toBe(false);
  });
});
