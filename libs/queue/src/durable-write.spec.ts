import { describe, expect, it } from '@jest/globals';
import { createDurableWriter } from './durable-write';
import { DurabilityUnavailableError, DurableWriteTimeoutError } from './errors';
import type { RedisCommandClient } from './redis-info';

interface FakeServer {
  version: string;
  appendonly: string;
  appendfsync: string;
  waitaof: boolean;
  /** What WAITAOF answers; a promise lets a test hold the fsync back. */
  waitaofReply: () => Promise<unknown>;
}

/** A fake Redis that records every command, in order. */
function fakeRedis(server: Partial<FakeServer> = {}): RedisCommandClient & { log: string[] } {
  const s: FakeServer = {
    version: '7.0.15',
    appendonly: 'yes',
    appendfsync: 'always',
    waitaof: false,
    waitaofReply: async () => [1, 0],
    ...server,
  };
  const log: string[] = [];
  return {
    log,
    async call(command, ...args) {
      const line = [command, ...args].join(' ');
      log.push(line);
      if (line === 'CONFIG GET appendonly') return ['appendonly', s.appendonly];
      if (line === 'CONFIG GET appendfsync') return ['appendfsync', s.appendfsync];
      if (line === 'COMMAND INFO WAITAOF') return [s.waitaof ? ['waitaof', 4] : null];
      if (line === 'INFO server') return `# Server\r\nredis_version:${s.version}\r\n`;
      if (command === 'WAITAOF') return s.waitaofReply();
      if (command === 'SET') return 'OK';
      throw new Error(`unexpected command ${line}`);
    },
  };
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('createDurableWriter with WAITAOF', () => {
  it('returns only after WAITAOF 1 0 confirms the write, issued after it', async () => {
    const fsync = deferred<unknown>();
    const redis = fakeRedis({
      version: '7.2.4',
      appendfsync: 'everysec',
      waitaof: true,
      waitaofReply: () => fsync.promise,
    });
    const writer = createDurableWriter(redis, { waitaofTimeoutMs: 250 });
    let settled = false;
    const write = writer
      .write((r) => r.call('SET', 'k', 'v'))
      .then((value) => {
        settled = true;
        return value;
      });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(redis.log.slice(-2)).toEqual(['SET k v', 'WAITAOF 1 0 250']);
    fsync.resolve([1, 0]);
    await expect(write).resolves.toBe('OK');
    expect(await writer.check()).toBe('waitaof');
  });

  it('fails with DurableWriteTimeoutError when the fsync is not confirmed', async () => {
    const redis = fakeRedis({ waitaof: true, waitaofReply: async () => [0, 0] });
    await expect(createDurableWriter(redis).write((r) => r.call('SET', 'k', 'v'))).rejects.toBeInstanceOf(
      DurableWriteTimeoutError,
    );
  });
});

describe('createDurableWriter without WAITAOF', () => {
  it('relies on appendfsync always, checking the configuration once', async () => {
    const redis = fakeRedis();
    const writer = createDurableWriter(redis);
    await writer.write((r) => r.call('SET', 'a', '1'));
    await writer.write((r) => r.call('SET', 'b', '2'));
    expect(redis.log.filter((line) => line.startsWith('CONFIG GET appendfsync'))).toHaveLength(1);
    expect(redis.log.some((line) => line.startsWith('WAITAOF'))).toBe(false);
    expect(await writer.check()).toBe('fsync-always');
  });

  it('refuses appendfsync everysec with the setting and the fix, and writes nothing', async () => {
    const redis = fakeRedis({ appendfsync: 'everysec' });
    const failure = createDurableWriter(redis).write((r) => r.call('SET', 'k', 'v'));
    await expect(failure).rejects.toBeInstanceOf(DurabilityUnavailableError);
    await expect(failure).rejects.toThrow(/7\.0\.15 has no WAITAOF.*appendfsync always.*'everysec'/s);
    expect(redis.log).not.toContain('SET k v');
  });

  it('refuses when AOF is off, even with WAITAOF', async () => {
    const writer = createDurableWriter(fakeRedis({ appendonly: 'no', waitaof: true }));
    await expect(writer.check()).rejects.toThrow(/appendonly yes/);
  });
});
