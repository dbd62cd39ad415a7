import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { hostField, logLevelField, portField } from './env-fields';
import { loadConfig } from './load-config';
import type { ConfigIo } from './load-config';

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function fakeIo() {
  const written: string[] = [];
  const io: ConfigIo = {
    exit: (code) => {
      throw new Exited(code);
    },
    writeError: (text) => {
      written.push(text);
    },
  };
  return { io, written };
}

const Schema = z.object({
  PORT: portField(7100),
  HOST: hostField(),
  LOG_LEVEL: logLevelField(),
  REDIS_URL: z.string().startsWith('redis://'),
  API_TOKEN: z.string().min(40),
});

describe('loadConfig', () => {
  it('returns the typed configuration with defaults applied', () => {
    const { io, written } = fakeIo();
    const config = loadConfig(Schema, { REDIS_URL: 'redis://127.0.0.1:6390', API_TOKEN: 'x'.repeat(40) }, io);
    expect(config).toEqual({
      PORT: 7100,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      REDIS_URL: 'redis://127.0.0.1:6390',
      API_TOKEN: 'x'.repeat(40),
    });
    expect(written).toEqual([]);
  });

  it('writes every problem as path and message, then exits 1', () => {
    const { io, written } = fakeIo();
    const env = { PORT: 'eighty', LOG_LEVEL: 'loud', REDIS_URL: 'http://nope' };
    expect(() => loadConfig(Schema, env, io)).toThrow(new Exited(1));
    expect(written).toHaveLength(1);
    const line = JSON.parse(written[0] ?? '') as { level: string; msg: string; issues: { path: string }[] };
    expect(line.level).toBe('fatal');
    expect(line.msg).toBe('invalid configuration');
    expect(line.issues.map((issue) => issue.path).sort()).toEqual([
      'API_TOKEN',
      'LOG_LEVEL',
      'PORT',
      'REDIS_URL',
    ]);
    for (const issue of line.issues)
      expect(issue).toEqual({ path: expect.any(String), message: expect.any(String) });
  });

  it('never writes the offending values', () => {
    const { io, written } = fakeIo();
    const canary = 'canary-7f3a9c1e-secret-token';
    const env = { PORT: canary, LOG_LEVEL: canary, REDIS_URL: canary, API_TOKEN: canary };
    expect(() => loadConfig(Schema, env, io)).toThrow(Exited);
    expect(written.join('')).not.toContain(canary);
    expect(written.join('')).toContain('API_TOKEN');
  });

  it('does not exit when the configuration is valid', () => {
    const { io } = fakeIo();
    expect(() => loadConfig(z.object({}), {}, io)).not.toThrow();
  });
});
