import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestAccess, findFreePort, startRedis, type RedisFixture } from '@sandbox/testing';
import { spawnService } from './service-process';

let dir: string;
let evicting: RedisFixture;
const access = createTestAccess();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'handoff-startup-'));
  writeFileSync(join(dir, 'intake'), 'startup-intake-credential');
  writeFileSync(join(dir, 'redeemer'), 'startup-redeemer-credential');
  evicting = await startRedis({ maxmemoryPolicy: 'allkeys-lru' });
});
afterAll(async () => {
  await evicting.stop();
  rmSync(dir, { recursive: true, force: true });
  access.cleanup();
});

async function run(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const handoff = spawnService('redemption-handoff', 'apps/redemption-handoff/src/main.ts', {
    PORT: String(await findFreePort()),
    INTAKE_SECRET_FILE: join(dir, 'intake'),
    REDEEMER_SECRET_FILE: join(dir, 'redeemer'),
    REDEEMER_URL: 'http://127.0.0.1:9',
    ...access.env,
    REDIS_STARTUP_TIMEOUT_MS: '2000',
    ...env,
  });
  const code = await Promise.race([
    handoff.exited,
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000)),
  ]);
  if (code === 'timeout') await handoff.kill9();
  return { code: code === 'timeout' ? -1 : code, output: handoff.output() };
}

describe('redemption-handoff start-up', () => {
  it('refuses a Redis that may evict keys, naming the fix, and exits 1', async () => {
    const { code, output } = await run({ REDIS_URL: evicting.url });
    expect(code).toBe(1);
    expect(output).toContain('maxmemory-policy');
    expect(output).not.toContain('startup-intake-credential');
  }, 90_000);

  it('exits 1 on a missing secret file or a bad setting, without opening a port', async () => {
    const missing = await run({ REDIS_URL: evicting.url, INTAKE_SECRET_FILE: join(dir, 'nope') });
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('ENOENT');
    const bad = await run({ REDIS_URL: evicting.url, CHAIN_VIEW: 'rpc' });
    expect(bad.code).toBe(1);
    expect(bad.output).toContain('CHAIN_VIEW');
  }, 90_000);
});
