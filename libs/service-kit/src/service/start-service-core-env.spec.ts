import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { memoryDestination } from '../__fixtures__/test-doubles';
import { coreEnvSchema } from '../config/base-env';
import { boundPort } from '../http/listen';
import { createHttpApp } from '../http/create-http-app';
import { startService } from './start-service';

const Schema = coreEnvSchema({ port: 7198, drainDelayMs: 0 });

describe('startService with neither Redis nor a management API (coreEnvSchema)', () => {
  it('starts without token files or REDIS_URL, refuses what access guards, applies the server options', async () => {
    const out = memoryDestination();
    const signals = new EventEmitter();
    let exited: (code: number) => void = () => undefined;
    const exitedOnce = new Promise<number>((resolve) => (exited = resolve));
    const started = await startService({
      name: 'core-svc',
      configSchema: Schema,
      env: { PORT: '0' },
      compose: ({ runtime, access }) => ({
        app: createHttpApp({
          ...runtime,
          access,
          configure: (app) => app.get('/v1/things', (_req, res) => void res.json([])),
        }),
        server: { requestTimeout: 0, keepAliveTimeout: 30_000 },
      }),
      signals,
      destination: out,
      exit: exited,
    });
    expect(Object.keys(started.config).sort()).toEqual(
      ['DRAIN_DELAY_MS', 'HOST', 'LOG_LEVEL', 'NODE_ENV', 'PORT', 'SHUTDOWN_TIMEOUT_MS'].sort(),
    );
    expect([started.server.requestTimeout, started.server.keepAliveTimeout]).toEqual([0, 30_000]);
    const port = boundPort(started.server);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const guarded = await fetch(`http://127.0.0.1:${port}/v1/things`);
    expect(guarded.status).toBe(403);
    expect(out.records().some((record) => record['msg'] === 'service ready')).toBe(true);
    signals.emit('SIGTERM');
    expect(await exitedOnce).toBe(0);
  });
});
