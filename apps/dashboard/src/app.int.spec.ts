import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ALL_QUEUES } from '@sandbox/protocol';
import { createRedisConnection } from '@sandbox/queue';
import { accessPolicy, createHealth, createLogger, createMetrics } from '@sandbox/service-kit';
import { createTestAccess, startRedis, uniquePrefix, type RedisFixture } from '@sandbox/testing';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { createApp } from './app';
import { openProtocolQueues } from './queues';

const CANARY = 'canary-secret-5f1e9d2c7b';
let redis: RedisFixture;
let connection: Redis;
let queues: Queue[] = [];
const lines: string[] = [];
const logger = createLogger({
  svc: 'dashboard',
  level: 'info',
  destination: { write: (line: string) => void lines.push(line) },
});

const access = createTestAccess();

function board(writable: boolean) {
  const health = createHealth({ logger });
  health.markReady();
  return createApp({
    access: accessPolicy({ tokens: access.tokens, serviceName: 'dashboard', basicAuth: true }),
    logger,
    health,
    metrics: createMetrics({ svc: 'dashboard' }),
    queues,
    writable,
  });
}

/** The dashboard as an operator with the admin token uses it. */
const dashboard = (writable: boolean) => request.agent(board(writable)).set(access.headers('admin'));

const queueNamed = (name: string) => queues.find((queue) => queue.name === name) as Queue;

beforeAll(async () => {
  redis = await startRedis();
  connection = createRedisConnection(redis.url, 'producer');
  // A producer connection refuses commands until it is connected (no offline queue).
  await new Promise((resolve) => connection.once('ready', resolve));
});

afterEach(async () => {
  await Promise.all(
    queues.map(async (queue) => {
      await queue.obliterate({ force: true });
      await queue.close();
    }),
  );
  queues = [];
});

afterAll(async () => {
  await connection.quit();
  await redis.stop();
  access.cleanup();
});

describe('dashboard', () => {
  it('lists every queue the protocol defines', async () => {
    queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
    const response = await dashboard(false).get('/queues/api/queues').expect(200);
    const names = (response.body as { queues: { name: string }[] }).queues.map((queue) => queue.name);
    expect(names.sort()).toEqual(ALL_QUEUES.map((queue) => queue.name).sort());
  });

  it('never shows a secret field of job data, even one no producer should have let through', async () => {
    queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
    // Added with a raw BullMQ queue on purpose: our producers refuse secret-named fields.
    const job = await queueNamed('ticket-delivery').add('deliver-ticket', {
      ticketHash: `0x${'ab'.repeat(32)}`,
      nested: { recipientRand: CANARY, list: [{ sessionToken: CANARY }] },
    });
    const list = await dashboard(false)
      .get('/queues/api/queues')
      .query({ activeQueue: 'ticket-delivery', status: 'latest', page: 1, jobsPerPage: 10 })
      .expect(200);
    const one = await dashboard(false).get(`/queues/api/queues/ticket-delivery/${job.id}`).expect(200);
    expect(JSON.stringify(list.body)).toContain('"recipientRand":"[redacted]"');
    expect(JSON.stringify(list.body)).toContain('ticketHash');
    for (const body of [list.text, one.text, lines.join('')]) expect(body).not.toContain(CANARY);
  });

  it('is read-only unless started writable', async () => {
    queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
    const readOnly = await dashboard(false).put('/queues/api/queues/instance-events/pause').expect(403);
    expect(readOnly.body.error.code).toBe('forbidden');
    expect(await queueNamed('instance-events').isPaused()).toBe(false);
    await dashboard(false).put('/queues/api/queues/pause').expect(403);
    await dashboard(true).put('/queues/api/queues/instance-events/pause').expect(200);
    expect(await queueNamed('instance-events').isPaused()).toBe(true);
  });

  it('refuses adding or editing jobs even when writable, since no producer would validate them', async () => {
    queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
    await dashboard(true)
      .post('/queues/api/queues/instance-events/add')
      .send({ name: 'instance-ready', data: {} })
      .expect(403);
    expect(await queueNamed('instance-events').count()).toBe(0);
  });

  it('refuses the always-refused routes whatever their case or trailing slash', async () => {
    queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
    for (const path of [
      '/queues/api/queues/instance-events/ADD',
      '/queues/API/Queues/instance-events/add/',
    ]) {
      await dashboard(true).post(path).send({ name: 'instance-ready', data: {} }).expect(403);
    }
    expect(await queueNamed('instance-events').count()).toBe(0);
  });

  it('refuses emptying, obliterating or cleaning a whole queue even when writable', async () => {
    queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
    await queueNamed('instance-events').add('instance-ready', { kept: true });
    for (const path of [
      '/queues/api/queues/instance-events/empty',
      '/queues/api/queues/instance-events/Obliterate',
      '/queues/api/queues/instance-events/clean/waiting',
    ]) {
      const response = await dashboard(true).put(path).expect(403);
      expect(response.body.error.code).toBe('forbidden');
    }
    expect(await queueNamed('instance-events').count()).toBe(1);
  });

  it('refuses every write but retry, promote, pause, resume and removing one job, even when writable', async () => {
    queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
    const delivery = queueNamed('ticket-delivery');
    const job = await delivery.add('deliver-ticket', { kept: true }, { delay: 60_000 });
    const refused: [string, string][] = [
      ['put', '/queues/api/queues/ticket-delivery/rate-limit'],
      ['put', '/queues/api/queues/ticket-delivery/concurrency'],
      ['put', '/queues/api/queues/ticket-delivery/rate-limit/release'],
      ['put', '/queues/api/queues/verifier-schedule/job-schedulers/evaluate/remove'],
      ['patch', '/queues/api/queues/verifier-schedule/job-schedulers/evaluate'],
      ['put', '/queues/api/queues/verifier-schedule/job-schedulers/evaluate/run'],
      ['patch', `/queues/api/queues/ticket-delivery/${job.id}/delay`],
      ['patch', `/queues/api/queues/ticket-delivery/${job.id}/priority`],
      ['put', `/queues/api/queues/ticket-delivery/${job.id}/remove-unprocessed-children`],
      ['post', '/queues/api/metrics/history/purge'],
      ['delete', `/queues/api/queues/ticket-delivery/${job.id}`],
      ['post', '/queues/api/queues/ticket-delivery/pause'],
    ];
    for (const [method, path] of refused) {
      const response = await dashboard(true)[method as 'put'](path).send({ max: 1, duration: 3_600_000 });
      expect([path, response.status, response.body.error?.code]).toEqual([path, 403, 'forbidden']);
    }
    expect(await delivery.getJobState(String(job.id))).toBe('delayed');
    await dashboard(true).put(`/queues/api/queues/ticket-delivery/${job.id}/promote`).expect(204);
    expect(await delivery.getJobState(String(job.id))).toBe('waiting');
    await dashboard(true).put(`/queues/api/queues/ticket-delivery/${job.id}/clean`).expect(204);
    expect(await delivery.getJob(String(job.id))).toBeUndefined();
    await dashboard(true).put('/queues/api/queues/ticket-delivery/pause').expect(200);
    await dashboard(true).put('/queues/api/queues/ticket-delivery/resume').expect(200);
    expect(await delivery.isPaused()).toBe(false);
  });

  it('redirects the root to the board and reports readiness', async () => {
    queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
    await dashboard(false).get('/').expect(302).expect('location', '/queues');
    await dashboard(false).get('/healthz').expect(200);
    const page = await dashboard(false).get('/queues').expect(200);
    expect(page.text).toContain('<html');
  });
});

describe('dashboard access', () => {
  const basic = (password: string) => `Basic ${Buffer.from(`operator:${password}`).toString('base64')}`;

  it.each(['/queues', '/queues/api/queues', '/'])(
    'GET %s: 401 (asking for basic auth) without or with a wrong token; open to read and admin',
    async (path) => {
      queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
      for (const headers of [{}, access.headers('wrong'), { authorization: basic('wrong-password') }]) {
        const refused = await request(board(false)).get(path).set(headers).expect(401);
        expect(refused.body.error.code).toBe('unauthenticated');
        expect(refused.headers['www-authenticate']).toContain('Basic realm="dashboard"');
      }
      for (const authorization of [access.tokens.read, access.tokens.admin].flatMap((t) => [
        `Bearer ${t}`,
        basic(t),
      ]))
        expect([200, 302]).toContain((await request(board(false)).get(path).set({ authorization })).status);
    },
  );

  it('lets only the admin token change state, and only when writable', async () => {
    queues = openProtocolQueues(connection, uniquePrefix('dash'), logger);
    const pause = (writable: boolean, authorization?: string) =>
      request(board(writable))
        .put('/queues/api/queues/instance-events/pause')
        .set(authorization === undefined ? {} : { authorization });
    await pause(true).expect(401);
    await pause(true, access.headers('wrong').authorization).expect(401);
    expect((await pause(true, basic(access.tokens.read)).expect(403)).body.error.code).toBe('forbidden');
    await pause(true, access.headers('read').authorization).expect(403);
    await pause(false, access.headers('admin').authorization).expect(403);
    expect(await queueNamed('instance-events').isPaused()).toBe(false);
    await pause(true, basic(access.tokens.admin)).expect(200);
    expect(await queueNamed('instance-events').isPaused()).toBe(true);
    for (const secret of [access.tokens.admin, access.tokens.read])
      expect(lines.join('')).not.toContain(secret);
  });
});
