import { describe, expect, it } from '@jest/globals';
import { AdapterConfigSchema } from './config';

const tokens = { ADMIN_TOKEN_FILE: '/run/secrets/admin-token', READ_TOKEN_FILE: '/run/secrets/read-token' };

describe('adapter configuration', () => {
  it('has working defaults for the local stack', () => {
    const config = AdapterConfigSchema.parse({
      ...tokens,
      BOOTSTRAP_SECRET_FILE: '.data/node-bootstrap-secret',
    });
    expect(config).toMatchObject({
      PORT: 7102,
      HOST: '127.0.0.1',
      REDIS_URL: 'redis://127.0.0.1:6390',
      NODE_URL: 'http://127.0.0.1:8935',
      DEFAULT_HEARTBEAT_INTERVAL: 5_000,
      O2R_KEEPALIVE_TIMEOUT_MS: 25_000,
      MAX_CONCURRENT_REQUESTS: 32,
    });
  });

  it('parses Go durations and refuses unusable values', () => {
    expect(
      AdapterConfigSchema.parse({
        ...tokens,
        BOOTSTRAP_SECRET_FILE: 'f',
        DEFAULT_HEARTBEAT_INTERVAL: '1m30s',
      }).DEFAULT_HEARTBEAT_INTERVAL,
    ).toBe(90_000);
    const bad = AdapterConfigSchema.safeParse({
      ...tokens,
      BOOTSTRAP_SECRET_FILE: 'f',
      DEFAULT_HEARTBEAT_INTERVAL: '0s',
      NODE_URL: 'http://user:pass@node:8935',
      MAX_CONCURRENT_REQUESTS: '65',
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((issue) => issue.path[0]).sort()).toEqual([
      'DEFAULT_HEARTBEAT_INTERVAL',
      'MAX_CONCURRENT_REQUESTS',
      'NODE_URL',
    ]);
    expect(AdapterConfigSchema.safeParse({}).success).toBe(false);
  });
});
