import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeartbeatResponseSchema, HeartbeatRuleMessage, NodeErrorMessage } from '@sandbox/protocol';
import type { SimFixture } from '../testing/sim-fixture';
import { idGenerator } from '../registry/id-scheme';
import { BOOTSTRAP_SECRET, call, heartbeat, register, startSimFixture } from '../testing/sim-fixture';

let fx: SimFixture;
beforeAll(async () => {
  fx = await startSimFixture();
});
afterAll(async () => {
  await fx.stop();
});

const valid = { runner_url: 'http://10.0.0.5:8080/base', app: 'echo', capacity: 2 };
let counter = 0;
const freshId = (): string => `reg-${++counter}`;

async function discovered(runnerId: string): Promise<Record<string, unknown> | undefined> {
  const [entry] = (await call(`${fx.url}/discovery`)).json<
    Array<{ runners: Array<Record<string, unknown>> }>
  >();
  return entry?.runners.find((runner) => String(runner.url).includes(`/apps/${runnerId}/`));
}

describe('POST /runners/heartbeat: body rules (bootstrap credential)', () => {
  const jsonError = NodeErrorMessage.InvalidHeartbeatJson;
  it.each<[string, unknown, string]>([
    ['malformed JSON', '{"app":', jsonError],
    ['trailing data after the object', '{"app":"a"} {}', jsonError],
    ['a JSON array', '[]', jsonError],
    ['an empty body', '', jsonError],
    ['a string capacity', { ...valid, capacity: '2' }, jsonError],
    ['a fractional capacity', '{"runner_url":"http://h","app":"a","capacity":1.5}', jsonError],
    ['capacity written 1.0 (not a Go int)', '{"runner_url":"http://h","app":"a","capacity":1.0}', jsonError],
    ['a negative gpu index', { ...valid, gpu: -1 }, jsonError],
    ['a negative gpu vram', { ...valid, gpu: { vram_mb: -1 } }, jsonError],
    ['a gpu given as a string', { ...valid, gpu: '0' }, jsonError],
    ['a price that is not a number', { ...valid, price_info: { price: 'cheap' } }, jsonError],
    ['a non-boolean proxy', { ...valid, proxy: 'yes' }, jsonError],
    ['a body over 1 MiB', { ...valid, metadata: 'x'.repeat(1 << 20) }, jsonError],
    ['a runner_id with a slash', { ...valid, runner_id: 'a/b' }, HeartbeatRuleMessage.RunnerId],
    ['a runner_id of 129 bytes', { ...valid, runner_id: 'r'.repeat(129) }, HeartbeatRuleMessage.RunnerId],
    ['no app', { ...valid, app: '' }, HeartbeatRuleMessage.AppAndCapacity],
    ['capacity 10001', { ...valid, capacity: 10_001 }, HeartbeatRuleMessage.AppAndCapacity],
    ['a negative capacity', { ...valid, capacity: -1 }, HeartbeatRuleMessage.AppAndCapacity],
    ['no runner_url', { app: 'a' }, HeartbeatRuleMessage.RunnerUrl],
    ['an ftp runner_url', { ...valid, runner_url: 'ftp://h/x' }, HeartbeatRuleMessage.RunnerUrl],
    ['a runner_url without host', { ...valid, runner_url: 'http:///x' }, HeartbeatRuleMessage.RunnerUrl],
    ['mode single_shot', { ...valid, mode: 'single_shot' }, HeartbeatRuleMessage.Mode],
    ['mode in upper case', { ...valid, mode: 'Persistent' }, HeartbeatRuleMessage.Mode],
    ['unit 720p', { ...valid, price_info: { price: 1, unit: '720p' } }, HeartbeatRuleMessage.Unit720p],
    [
      'unit " 720P " (trimmed, lower-cased)',
      { ...valid, price_info: { price: 1, unit: ' 720P ' } },
      HeartbeatRuleMessage.Unit720p,
    ],
    ['unit minute', { ...valid, price_info: { price: 1, unit: 'minute' } }, HeartbeatRuleMessage.Unit],
    [
      'a negative price',
      { ...valid, price_info: { price: -0.5, unit: 'hour' } },
      HeartbeatRuleMessage.NegativePrice,
    ],
    [
      'a positive price in EUR',
      { ...valid, price_info: { price: 1, currency: 'eur' } },
      HeartbeatRuleMessage.Currency,
    ],
  ])('rejects %s with 400', async (_name, body, message) => {
    const reply = await heartbeat(fx, BOOTSTRAP_SECRET, body);
    expect(reply.status).toBe(400);
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.json()).toEqual({ error: message });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['capacity 0 as 1', { capacity: 0 }, { capacity: 1, capacity_available: 1 }],
    ['a missing mode as persistent', {}, { mode: 'persistent' }],
    ['a bare gpu index as {id}', { gpu: 3 }, { gpu: { id: '3' } }],
    [
      'a gpu object',
      { gpu: { id: 'GPU-1', name: 'L4', vram_mb: 23034 } },
      { gpu: { id: 'GPU-1', name: 'L4', vram_mb: 23034 } },
    ],
    [
      'a USD quote as free when off-chain',
      { price_info: { price: 1.5, currency: 'USD', unit: 'Hour' } },
      { app: 'echo' },
    ],
    [
      'a price in a JSON string',
      { price_info: { price: '0.25', currency: 'usd', unit: 'fixed' } },
      { app: 'echo' },
    ],
    ['a free price in any currency', { price_info: { price: 0, currency: 'eur' } }, { app: 'echo' }],
    [
      'metadata and version',
      { metadata: '{"k":"<v>"}', version: '1.2.3' },
      { metadata: '{"k":"<v>"}', version: '1.2.3' },
    ],
    [
      'null fields as absent',
      { label: null, gpu: null, price_info: null, session_ids: null },
      { app: 'echo' },
    ],
    ['unknown fields', { extra: { nested: [1, 2] } }, { app: 'echo' }],
  ])('accepts and normalises %s', async (_name, patch, expected) => {
    const runnerId = freshId();
    await register(fx, { ...valid, runner_id: runnerId, ...patch });
    const found = await discovered(runnerId);
    expect(found).toMatchObject(expected);
    // Off-chain every runner is free, and a free runner's price is omitted (`omitzero`).
    expect(found).not.toHaveProperty('price_info');
  });

  it('matches keys case-insensitively, as Go does', async () => {
    const runnerId = freshId();
    const reply = await heartbeat(fx, BOOTSTRAP_SECRET, {
      Runner_ID: runnerId,
      RUNNER_URL: valid.runner_url,
      App: 'cased',
    });
    expect(reply.status).toBe(200);
    expect(await discovered(runnerId)).toMatchObject({ app: 'cased' });
  });

  it('ignores the session_ids a runner reports and answers with its own list', async () => {
    const reg = await register(fx, { ...valid, runner_id: freshId(), session_ids: ['made-up'] });
    expect(reg.session_ids).toEqual([]);
  });
});

describe('POST /runners/heartbeat: credentials', () => {
  it('registers with the raw bootstrap secret and returns the contract response', async () => {
    const reply = await heartbeat(fx, BOOTSTRAP_SECRET, valid);
    expect(reply.status).toBe(200);
    const body = HeartbeatResponseSchema.parse(reply.json());
    expect(body.runner_id).toMatch(/^[0-9a-f]{32}$/u);
    expect(body.heartbeat_secret).toMatch(/^[0-9a-f]{32}$/u);
    expect(body).toMatchObject({
      orchestrator: fx.url,
      heartbeat_interval: '5s',
      heartbeat_ttl: '30s',
      session_ids: [],
    });
    expect(body.o2r).toEqual({
      name: 'o2r',
      channel_name: expect.stringMatching(/^[0-9a-f]{32}$/u),
      url: `${fx.url}/ai/trickle/${body.o2r?.channel_name}`,
      mime_type: 'application/json',
    });
    expect(Object.keys(reply.json() as object)).toEqual([
      'runner_id',
      'orchestrator',
      'heartbeat_interval',
      'heartbeat_ttl',
      'heartbeat_secret',
      'session_ids',
      'o2r',
    ]);
  });

  it('answers later heartbeats without secret or o2r', async () => {
    const reg = await register(fx, { ...valid, runner_id: freshId() });
    const reply = await heartbeat(fx, reg.heartbeat_secret, { ...valid, runner_id: reg.runner_id });
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({
      runner_id: reg.runner_id,
      orchestrator: fx.url,
      heartbeat_interval: '5s',
      heartbeat_ttl: '30s',
      session_ids: [],
    });
  });

  it.each<
    [
      string,
      (
        reg: { runner_id: string; heartbeat_secret: string },
        other: string,
      ) => [string, Record<string, unknown>],
    ]
  >([
    ['no Authorization', (reg) => ['', { ...valid, runner_id: reg.runner_id }]],
    ['a Bearer prefix', () => [`Bearer ${BOOTSTRAP_SECRET}`, valid]],
    ['the bootstrap secret in upper case', () => [BOOTSTRAP_SECRET.toUpperCase(), valid]],
    ['a prefix of the bootstrap secret', () => [BOOTSTRAP_SECRET.slice(0, -1), valid]],
    [
      'the bootstrap secret for a registered runner id',
      (reg) => [BOOTSTRAP_SECRET, { ...valid, runner_id: reg.runner_id }],
    ],
    ['a runner credential without runner_id (a new registration)', (reg) => [reg.heartbeat_secret, valid]],
    [
      'a runner credential for a new runner id',
      (reg) => [reg.heartbeat_secret, { ...valid, runner_id: freshId() }],
    ],
    ["another runner's credential", (reg, other) => [other, { ...valid, runner_id: reg.runner_id }]],
    [
      'an unknown credential',
      (reg) => ['0123456789abcdef0123456789abcdef', { ...valid, runner_id: reg.runner_id }],
    ],
  ])('rejects %s with 401', async (_name, build) => {
    const reg = await register(fx, { ...valid, runner_id: freshId() });
    const other = await register(fx, { ...valid, runner_id: freshId() });
    const [auth, body] = build(reg, other.heartbeat_secret);
    const reply = await heartbeat(fx, auth, body);
    expect(reply.status).toBe(401);
    expect(reply.json()).toEqual({ error: NodeErrorMessage.InvalidRunnerCredential });
  });

  it('closes the connection on a failed pre-check, before reading the body', async () => {
    const reply = await heartbeat(fx, 'nope', '{ not even json');
    expect(reply.status).toBe(401);
    expect(reply.headers.get('connection')).toBe('close');
  });

  it('rejects a valid body check only after the credential pre-check', async () => {
    const reply = await heartbeat(fx, 'nope', { ...valid, capacity: 99_999 });
    expect(reply.status).toBe(401);
  });
});

// `--id-format base32`: orchestrator/registry.go@e6ed85a9 (`randomIDWithPrefix`, `randomID(n)`).
describe("POST /runners/heartbeat: Node's newer ids and credentials", () => {
  it('hands out runner_ ids, 52-character base32 credentials and session_ ids, and accepts them back', async () => {
    const newer = await startSimFixture({}, { newId: idGenerator('base32') });
    try {
      const reply = await heartbeat(newer, BOOTSTRAP_SECRET, { ...valid, mode: 'persistent' });
      const body = HeartbeatResponseSchema.parse(reply.json());
      expect(body.runner_id).toMatch(/^runner_[a-z2-7]{8}$/u);
      expect(body.heartbeat_secret).toMatch(/^[a-z2-7]{52}$/u);
      const again = await heartbeat(newer, body.heartbeat_secret ?? '', {
        ...valid,
        runner_id: body.runner_id,
      });
      expect(again.status).toBe(200);
      const reserved = await call(`${newer.url}/apps/${body.runner_id}/session`, { method: 'POST' });
      expect(reserved.json<{ session_id: string }>().session_id).toMatch(/^session_[a-z2-7]{16}$/u);
    } finally {
      await newer.stop();
    }
  });
});
