import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@sandbox/service-kit';
import { startChildProcess } from '@sandbox/process';
import { findFreePort, waitFor } from '@sandbox/testing';
import { Redis } from 'ioredis';
import { inheritedEnv, StackConfigSchema } from './config';
import { restrictRedisData } from './redis-data';
import { redisMember } from './stack-members';
import { ensureStackSecrets } from './stack-secrets';

/** Every path under `dir` (itself included) whose mode lets its group or others in. */
function openToOthers(dir: string): string[] {
  const paths = [dir, ...readdirSync(dir, { recursive: true }).map((name) => join(dir, String(name)))];
  return paths.filter((path) => (statSync(path).mode & 0o077) !== 0).map((path) => path.slice(dir.length));
}

describe("the stack's Redis data", () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'stack-redis-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('tightens a data folder an older stack left readable by all', () => {
    const dir = join(dataDir, 'redis');
    mkdirSync(join(dir, 'appendonlydir'), { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, 'appendonlydir', 'appendonly.aof.1.incr.aof'), 'data', { mode: 0o644 });
    expect(openToOthers(dir).length).toBeGreaterThan(0);
    restrictRedisData(dir);
    expect(openToOthers(dir)).toEqual([]);
  });

  it('is written by Redis with no group or world bits (files 0600, folders 0700)', async () => {
    const port = await findFreePort();
    const config = loadConfig(StackConfigSchema, { REDIS_PORT: String(port) });
    const secrets = ensureStackSecrets(dataDir);
    const dir = join(dataDir, 'redis');
    restrictRedisData(dir);
    const spec = redisMember(config, {
      root: process.cwd(),
      isRoot: false,
      dataDir,
      secrets,
      nodePath: process.execPath,
      baseEnv: inheritedEnv(process.env),
    });
    const redis = startChildProcess(spec.command, spec.args, { env: spec.env, cwd: spec.cwd });
    try {
      await waitFor(spec.isReady, { description: 'redis ready', timeoutMs: 15_000, intervalMs: 100 });
      const client = new Redis({
        port,
        host: '127.0.0.1',
        password: readFileSync(secrets.redisPassword, 'utf8'),
      });
      try {
        await client.set('heartbeat-credential', 'stands for a secret');
        await client.bgrewriteaof();
        await waitFor(async () => (await client.info('persistence')).includes('aof_rewrite_in_progress:0'), {
          description: 'the AOF rewritten',
          timeoutMs: 10_000,
          intervalMs: 100,
        });
      } finally {
        client.disconnect();
      }
      const files = readdirSync(dir, { recursive: true }).map(String);
      expect(files.some((name) => name.endsWith('.aof'))).toBe(true);
      expect(openToOthers(dir)).toEqual([]);
    } finally {
      await redis.stop(5_000);
    }
  });
});
