import { afterAll, describe, expect, it } from '@jest/globals';
import { createTestAccess } from '@sandbox/testing';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { memoryDestination } from '../__fixtures__/test-doubles';
import { baseEnvSchema } from '../config/base-env';
import type { ConfigIo } from '../config/load-config';
import { boundPort } from '../http/listen';
import { createHttpApp } from '../http/create-http-app';
import { startService } from './start-service';
import type { ServiceDefinition, ServiceWiring } from './start-service';

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

const access = createTestAccess();
afterAll(() => access.cleanup());

const Schema = baseEnvSchema({ port: 7199 }).extend({ FIXTURE_WORD: z.string().min(3) });

/** A service definition over test doubles: memory log, fake exit and io, an emitter for signals. */
function harness(compose: ServiceDefinition<typeof Schema>['compose'], env: Record<string, string> = {}) {
  const out = memoryDestination();
  const written: string[] = [];
  const exits: number[] = [];
  let exited: (code: number) => void = () => undefined;
  const exitedOnce = new Promise<number>((resolve) => (exited = resolve));
  const io: ConfigIo = {
    exit: (code) => {
      throw new Exited(code);
    },
    writeError: (text) => void written.push(text),
  };
  const signals = new EventEmitter();
  const definition: ServiceDefinition<typeof Schema> = {
    name: 'fixture-svc',
    configSchema: Schema,
    env: { PORT: '0', DRAIN_DELAY_MS: '0', LOG_LEVEL: 'debug', FIXTURE_WORD: 'word', ...access.env, ...env },
    compose,
    io,
    signals,
    destination: out,
    exit: (code) => {
      exits.push(code);
      exited(code);
    },
  };
  return { definition, out, written, exits, exitedOnce, signals };
}

const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;
const statusOf = async (port: number, path: string) =>
  (await fetch(url(port, path), { headers: { connection: 'close' } })).status;

describe('startService', () => {
  it('on a configuration error writes every issue, exits 1 and builds nothing', async () => {
    let composed = false;
    const { definition, written, out } = harness(
      () => {
        composed = true;
        throw new Error('unreachable');
      },
      { PORT: 'eighty', LOG_LEVEL: 'loud', FIXTURE_WORD: 'x' },
    );
    await expect(startService(definition)).rejects.toEqual(new Exited(1));
    expect(composed).toBe(false);
    expect(out.lines).toEqual([]);
    const line = JSON.parse(written.join('')) as { msg: string; issues: { path: string }[] };
    expect(line.msg).toBe('invalid configuration');
    expect(line.issues.map((issue) => issue.path).sort()).toEqual(['FIXTURE_WORD', 'LOG_LEVEL', 'PORT']);
  });

  it('refuses a drain delay that leaves the shutdown no time', async () => {
    const { definition, written } = harness(() => ({ app: () => undefined }), {
      DRAIN_DELAY_MS: '5000',
      SHUTDOWN_TIMEOUT_MS: '5000',
    });
    await expect(startService(definition)).rejects.toEqual(new Exited(1));
    expect(written.join('')).toContain('DRAIN_DELAY_MS');
  });

  it('runs compose, the start hooks in order, listens, the after-listen hooks, then turns ready', async () => {
    const steps: string[] = [];
    let port = 0;
    const { definition, out, signals, exitedOnce } = harness(({ config, runtime }) => {
      steps.push(`compose ${config.FIXTURE_WORD}`);
      const step = (name: string, run: () => unknown = () => steps.push(name)) => ({ name, run });
      const wiring: ServiceWiring = {
        app: createHttpApp(runtime),
        start: [step('first'), step('second'), step('third')],
        afterListen: [
          step('probe while starting', async () => {
            const listening = out.records().find((record) => record['msg'] === 'listening');
            port = Number(listening?.['port']);
            steps.push(`after listen: readyz ${await statusOf(port, '/readyz')}`);
          }),
        ],
        readyFields: () => ({ steps: steps.length }),
      };
      return wiring;
    });
    const started = await startService(definition);
    expect(steps).toEqual(['compose word', 'first', 'second', 'third', 'after listen: readyz 503']);
    expect(boundPort(started.server)).toBe(port);
    expect(await statusOf(port, '/readyz')).toBe(200);
    expect(out.records().find((record) => record['msg'] === 'service ready')).toMatchObject({
      svc: 'fixture-svc',
      steps: 5,
    });
    signals.emit('SIGTERM');
    expect(await exitedOnce).toBe(0);
  });

  it('shuts down in phase order whatever order the parts registered in, readiness 503 at once', async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { definition, signals, exitedOnce } = harness(({ runtime }) => {
      const { shutdown } = runtime;
      shutdown.register('redis', 'redis', () => order.push('redis'));
      shutdown.register('workers', 'worker', () => order.push('workers'));
      shutdown.register('informers', 'informer', () => order.push('informers'));
      shutdown.register('queues', 'producer', () => order.push('queues'));
      shutdown.register('readiness', 'hold', () => held.then(() => order.push('readiness')));
      return { app: createHttpApp(runtime) };
    });
    const { server, runtime } = await startService(definition);
    const port = boundPort(server);
    runtime.shutdown.register('http', 'after-server', () => order.push(`http listening=${server.listening}`));
    expect(await statusOf(port, '/readyz')).toBe(200);
    signals.emit('SIGTERM');
    expect(runtime.health.state).toBe('stopping');
    // The readiness phase holds: the port still answers, and readiness is already 503.
    expect(await statusOf(port, '/readyz')).toBe(503);
    expect(await statusOf(port, '/healthz')).toBe(200);
    release();
    expect(await exitedOnce).toBe(0);
    expect(order).toEqual(['readiness', 'http listening=false', 'workers', 'queues', 'informers', 'redis']);
  });

  it('waits DRAIN_DELAY_MS between readiness off and closing the listener', async () => {
    const { definition, signals, exitedOnce } = harness(({ runtime }) => ({ app: createHttpApp(runtime) }), {
      DRAIN_DELAY_MS: '300',
    });
    const { server } = await startService(definition);
    const port = boundPort(server);
    signals.emit('SIGTERM');
    expect(await statusOf(port, '/readyz')).toBe(503);
    expect(server.listening).toBe(true);
    expect(await exitedOnce).toBe(0);
    expect(server.listening).toBe(false);
  });

  it('on a failed start hook logs it and runs the shutdown with exit 1, opening no port', async () => {
    const closed: string[] = [];
    const { definition, out, exits } = harness(({ runtime }) => {
      runtime.shutdown.register('redis', 'redis', () => closed.push('redis'));
      return {
        app: createHttpApp(runtime),
        start: [
          { name: 'preflight', run: () => Promise.reject(new Error('preflight refused')) },
          { name: 'never', run: () => closed.push('never') },
        ],
      };
    });
    await expect(startService(definition)).rejects.toThrow('preflight refused');
    expect(exits).toEqual([1]);
    expect(closed).toEqual(['redis']);
    const messages = out.records().map((record) => record['msg']);
    expect(messages).toContain('service failed to start');
    expect(messages).not.toContain('listening');
  });

  it('puts the password of REDIS_PASSWORD_FILE into REDIS_URL and keeps it out of the logs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redis-password-'));
    const password = 'redis-password-canary-5b2e7f';
    writeFileSync(join(dir, 'redis-password'), `${password}\n`);
    let seen = '';
    const { definition, out, signals, exitedOnce } = harness(
      ({ config, runtime }) => {
        seen = config.REDIS_URL;
        runtime.logger.info({ url: config.REDIS_URL, note: `password ${password}` }, 'redis configured');
        return { app: createHttpApp(runtime) };
      },
      { REDIS_URL: 'redis://127.0.0.1:6390/0', REDIS_PASSWORD_FILE: join(dir, 'redis-password') },
    );
    await startService(definition);
    expect(new URL(seen).password).toBe(password);
    expect(out.text()).toContain('redis configured');
    expect(out.text()).not.toContain(password);
    signals.emit('SIGTERM');
    expect(await exitedOnce).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});
