// The drain commands against a scripted drain-controller: what they send, what they print, how they exit.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DrainRecordSchema, type DrainRecord } from '@sandbox/protocol';
import { findFreePort } from '@sandbox/testing';
import { runWith } from '../__fixtures__/memory-io';
import { startScriptedServer, type ScriptedServer } from '../__fixtures__/scripted-server';

const START = Date.parse('2026-12-01T10:00:00.000Z');
const iso = (offsetMs: number) => new Date(START + offsetMs).toISOString();

function record(phase: DrainRecord['phase'], changes: Partial<DrainRecord> = {}): DrainRecord {
  return DrainRecordSchema.parse({
    id: 'd1',
    phase,
    reason: 'node 1.2.3',
    target: { restart: true },
    windowMs: 6 * 3_600_000,
    quietPeriodMs: 30_000,
    createdAt: iso(0),
    deadline: iso(6 * 3_600_000),
    outcome: null,
    abortRequestedAt: null,
    sessions: { total: 3, byApp: { echo: 2, chat: 1 }, observedAt: iso(0) },
    quietSince: null,
    runners: null,
    replacement: null,
    history: [{ phase: 'withdrawing', at: iso(0) }],
    lastError: null,
    finishedAt: null,
    ...changes,
  });
}

let server: ScriptedServer;
/** Phases GET /v1/drains/d1 answers, one per poll (the last one repeats). */
let phases: DrainRecord['phase'][] = [];
/** When set, the records GET /v1/drains/d1 answers instead, one per poll (the last one repeats). */
let answers: DrainRecord[] = [];
let drains: DrainRecord[] = [];

beforeAll(async () => {
  server = await startScriptedServer(await findFreePort(), (method, path, body) => {
    if (method === 'GET' && path === '/v1/drains') return { status: 200, body: { drains } };
    if (method === 'POST' && path === '/v1/drains') {
      const request = JSON.parse(body) as { target: DrainRecord['target'] };
      return { status: 201, body: record('withdrawing', { target: request.target }) };
    }
    if (method === 'GET' && path === '/v1/drains/d1' && answers.length > 0)
      return { status: 200, body: (answers.length > 1 ? answers.shift() : answers[0]) ?? record('draining') };
    if (method === 'GET' && path === '/v1/drains/d1')
      return { status: 200, body: record((phases.length > 1 ? phases.shift() : phases[0]) ?? 'draining') };
    if (path === '/v1/drains/d1/extend')
      return { status: 200, body: record('draining', { deadline: iso(10 * 3_600_000) }) };
    if (path === '/v1/drains/d1/abort') return { status: 200, body: record('aborted') };
    return { status: 404, body: { error: { code: 'not_found', message: 'no such route' }, requestId: 'r' } };
  });
});

afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  drains = [record('draining')];
  answers = [];
});

const run = (...argv: string[]) =>
  runWith([...argv, '--server', `drain-controller=${server.url}`], {
    env: { SANDBOXCTL_CONFIG: '/nonexistent/config.yaml' },
    sleep: async () => undefined,
  });

describe('drain', () => {
  it('start sends the window, target and reason, and --watch follows it to the end', async () => {
    phases = ['draining', 'replacing', 'done'];
    const result = await run(
      'drain',
      'start',
      '--window',
      '6h',
      '--restart',
      '--watch',
      '--reason',
      'kernel',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      target: { restart: true },
      reason: 'kernel',
      window: '6h',
    });
    expect(result.stderr).toContain('drain/d1 draining, 3 session(s) left (echo=2 chat=1), deadline ');
    expect(result.stderr).toContain('drain/d1 replacing');
    expect(result.stdout).toMatch(/^drain\/d1 done, 3 session\(s\) left/m);
  });

  it('--watch shows the phases a drain went through between two polls, from its history', async () => {
    const change = (phase: DrainRecord['phase'], at: number) => ({ phase, at: iso(at) });
    const passed = (['withdrawing', 'draining', 'cancelling', 'awaiting-node', 'replacing'] as const).map(
      (phase, index) => change(phase, index * 1_000),
    );
    answers = [
      record('draining', { history: passed.slice(0, 2) }),
      record('done', { history: [...passed, change('resuming', 6_000), change('done', 7_000)] }),
    ];
    const result = await run('drain', 'start', '--window', '6h', '--restart', '--watch');
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('drain/d1 '));
    expect(lines.map((line) => line.split(/[ ,]/u)[1])).toEqual([
      'started',
      'withdrawing',
      'draining',
      'cancelling',
      'awaiting-node',
      'replacing',
      'resuming',
      'done',
    ]);
    expect(lines[5]).toBe(`drain/d1 replacing, at ${iso(4_000)}`);
  });

  it('start needs exactly one of --image and --restart (usage errors)', async () => {
    expect((await run('drain', 'start', '--window', '6h')).code).toBe(2);
    expect((await run('drain', 'start', '--image', 'livepeer/node:1', '--restart')).code).toBe(2);
    expect(server.requests).toEqual([]);
  });

  it('--watch exits 1 when the drain ends other than done', async () => {
    phases = ['failed'];
    const result = await run('drain', 'start', '--image', 'livepeer/node:1.2.3', '--watch');
    expect([result.code, result.stderr]).toEqual([
      1,
      expect.stringContaining('error: drain/d1 ended failed'),
    ]);
  });

  it('extend --to turns the new window into the "by" the service takes; abort finds the active drain', async () => {
    const extended = await run('drain', 'extend', '--to', '10h');
    expect(extended.code).toBe(0);
    expect(server.requests.at(-1)).toMatchObject({
      path: '/v1/drains/d1/extend',
      body: '{"by":"14400000ms"}',
    });
    expect((await run('drain', 'extend', '--to', '5h')).stderr).toContain('window is already 6h');
    expect((await run('drain', 'abort')).stdout).toMatch(/^drain\/d1 aborted/m);
    drains = [record('done')];
    expect((await run('drain', 'abort')).stderr).toBe(
      'error: no drain is in progress (sandboxctl drain status shows the last ones)\n',
    );
    expect((await run('drain', 'status')).stdout).toMatch(/^drain\/d1 done/m);
  });
});
