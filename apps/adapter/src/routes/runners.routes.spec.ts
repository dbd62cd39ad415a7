import { describe, expect, it } from '@jest/globals';
import type { RunnerView } from '@sandbox/protocol';
import { createHealth, createMetrics, createSecretScrubber } from '@sandbox/service-kit';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../app';
import type { RunnerSource } from './runners.routes';

const view = (instanceId: string, state: RunnerView['state'], message = 'ok'): RunnerView => ({
  instanceId,
  app: 'echo',
  runnerId: instanceId,
  state,
  capacity: 2,
  advertisedCapacity: 2,
  lastBeat: { at: '2025-01-01T00:00:00.000Z', latencyMs: 1.5 },
  heartbeat: { intervalMs: 5_000, ttlMs: 30_000 },
  sessions: [],
  o2r: { connected: true, lastMessageAt: null },
  lastError: { kind: 'http', status: 503, message, at: '2025-01-01T00:00:00.000Z', consecutive: 1 },
  failure: null,
  withdrawal: null,
});

function app(views: RunnerView[]) {
  const secrets = createSecretScrubber();
  secrets.register('super-secret-credential');
  const runners: RunnerSource = {
    list: (query) => views.filter((entry) => query.state === undefined || entry.state === query.state),
    get: (id) => views.find((entry) => entry.instanceId === id),
    drainStatus: { mode: 'open', drainId: null, since: null },
  };
  return createApp({
    logger: pino({ level: 'silent' }),
    health: createHealth(),
    metrics: createMetrics({ svc: 'adapter', collectDefaults: false }),
    secrets,
    runners,
  });
}

describe('runners routes', () => {
  it('lists registrations, filtered by state, and shows one', async () => {
    const server = app([view('a-1', 'registered'), view('b-1', 'failed')]);
    const all = await request(server).get('/v1/runners').expect(200);
    expect(all.body.runners.map((entry: RunnerView) => entry.instanceId)).toEqual(['a-1', 'b-1']);
    expect(all.body.drain).toEqual({ mode: 'open', drainId: null, since: null });
    const failed = await request(server).get('/v1/runners?state=failed').expect(200);
    expect(failed.body.runners).toHaveLength(1);
    await request(server).get('/v1/runners/a-1').expect(200);
    const missing = await request(server).get('/v1/runners/zz-9').expect(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('answers 400 with every issue for bad input', async () => {
    const server = app([]);
    const bad = await request(server).get('/v1/runners?state=nope&extra=1').expect(400);
    expect(bad.body.error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'query',
      'query.state',
    ]);
    await request(server).get('/v1/runners/UPPER_case').expect(400);
  });

  it('never sends a registered secret, even one quoted in an error message', async () => {
    const server = app([view('a-1', 'registering', 'echoed super-secret-credential')]);
    const response = await request(server).get('/v1/runners').expect(200);
    expect(response.text).not.toContain('super-secret-credential');
    expect(response.body.runners[0].lastError.message).toBe('echoed [secret]');
  });
});
