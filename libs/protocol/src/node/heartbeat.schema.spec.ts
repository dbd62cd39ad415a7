import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { HeartbeatRequestSchema, HeartbeatResponseSchema } from './heartbeat.schema';
import { HeartbeatRuleMessage } from './node-errors.schema';

/** Issues as `path: message` lines, the readable form the tests assert on. */
function issues(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const registration = {
  runner_id: 'inst-7f3a_1',
  runner_url: 'http://10.42.0.17:8080',
  app: 'echo',
  mode: 'persistent',
  capacity: 4,
  status: 'ready',
  price_info: { price: 0.5, currency: 'usd', unit: 'hour' },
};

describe('HeartbeatRequestSchema', () => {
  it.each([
    ['the adapter contract example', registration],
    [
      'a first call without runner_id (Node generates one)',
      { runner_url: 'https://app.example/x?y=1', app: 'a' },
    ],
    ['the Python SDK first call with an empty runner_id', { ...registration, runner_id: '' }],
    ['capacity 0 (normalised to 1) and empty mode', { ...registration, capacity: 0, mode: '' }],
    [
      'single-shot with proxy and a fixed price',
      { ...registration, mode: 'single-shot', proxy: true, price_info: { price: 2, unit: 'fixed' } },
    ],
    ['a non-ready status (stored, runner unusable)', { ...registration, status: 'draining' }],
    [
      'price and unit needing trim and lower-casing',
      { ...registration, price_info: { price: 1, currency: ' USD ', unit: ' Hour ' } },
    ],
    [
      'a price in a JSON string',
      { ...registration, price_info: { price: '0.25', currency: 'usd', unit: 'fixed' } },
    ],
    ['free price with any currency', { ...registration, price_info: { price: 0, currency: 'eur' } }],
    ['gpu as an object', { ...registration, gpu: { id: '0', name: 'NVIDIA L4', vram_mb: 23034 } }],
    ['gpu as a bare index', { ...registration, gpu: 1 }],
    [
      'metadata, label, version and session_ids',
      { ...registration, metadata: '{"k":1}', label: 'l', version: '1.2', session_ids: ['s1'] },
    ],
    ['unknown fields (ignored by Node)', { ...registration, extra: { nested: true } }],
  ])('accepts %s', (_name, body) => {
    expect(issues(HeartbeatRequestSchema, body)).toEqual([]);
  });

  it.each([
    ['a runner_id with a slash', { runner_id: 'a/b' }, [`runner_id: ${HeartbeatRuleMessage.RunnerId}`]],
    [
      'a runner_id of 129 bytes',
      { runner_id: 'a'.repeat(129) },
      [`runner_id: ${HeartbeatRuleMessage.RunnerId}`],
    ],
    ['a missing app', { app: '' }, [`app: ${HeartbeatRuleMessage.AppAndCapacity}`]],
    ['capacity 10001', { capacity: 10_001 }, [`capacity: ${HeartbeatRuleMessage.AppAndCapacity}`]],
    ['a negative capacity', { capacity: -1 }, [`capacity: ${HeartbeatRuleMessage.AppAndCapacity}`]],
    ['a fractional capacity', { capacity: 1.5 }, [`capacity: ${HeartbeatRuleMessage.AppAndCapacity}`]],
    ['an ftp runner_url', { runner_url: 'ftp://host/x' }, [`runner_url: ${HeartbeatRuleMessage.RunnerUrl}`]],
    [
      'a runner_url without a host',
      { runner_url: 'http:/path' },
      [`runner_url: ${HeartbeatRuleMessage.RunnerUrl}`],
    ],
    [
      'a runner_url with an empty authority',
      { runner_url: 'http:///path' },
      [`runner_url: ${HeartbeatRuleMessage.RunnerUrl}`],
    ],
    ['the go-livepeer single_shot alias', { mode: 'single_shot' }, [`mode: ${HeartbeatRuleMessage.Mode}`]],
    [
      'a 720p unit',
      { price_info: { price: 1, unit: '720p' } },
      [`price_info.unit: ${HeartbeatRuleMessage.Unit720p}`],
    ],
    [
      'an unknown unit',
      { price_info: { price: 1, unit: 'minute' } },
      [`price_info.unit: ${HeartbeatRuleMessage.Unit}`],
    ],
    [
      'a negative price',
      { price_info: { price: -1, unit: 'hour' } },
      [`price_info.price: ${HeartbeatRuleMessage.NegativePrice}`],
    ],
    [
      'a paid price in EUR',
      { price_info: { price: 1, currency: 'eur' } },
      [`price_info.currency: ${HeartbeatRuleMessage.Currency}`],
    ],
    [
      'a non-numeric price string',
      { price_info: { price: '1 usd' } },
      ['price_info.price: must be a JSON number'],
    ],
    ['a negative gpu index', { gpu: -1 }, ['gpu: GPU index must be nonnegative']],
    ['a negative gpu vram', { gpu: { vram_mb: -5 } }, ['gpu.vram_mb: GPU VRAM must be nonnegative']],
    ['a string capacity', { capacity: '3' }, ['capacity: Invalid input: expected number, received string']],
    [
      'session_ids that are not strings',
      { session_ids: [1] },
      ['session_ids.0: Invalid input: expected string, received number'],
    ],
  ])('rejects %s', (_name, patch, expected) => {
    expect(issues(HeartbeatRequestSchema, { ...registration, ...patch })).toEqual(expected);
  });

  it('requires runner_url and app', () => {
    expect(issues(HeartbeatRequestSchema, {})).toEqual([
      'runner_url: Invalid input: expected string, received undefined',
      'app: Invalid input: expected string, received undefined',
    ]);
  });
});

const o2r = {
  name: 'o2r',
  channel_name: '0123456789abcdef0123456789abcdef',
  url: 'http://node.internal:8935/ai/trickle/0123456789abcdef0123456789abcdef',
  mime_type: 'application/json',
};
const initialResponse = {
  runner_id: 'inst-7f3a_1',
  orchestrator: 'http://node.internal:8935',
  heartbeat_interval: '5s',
  heartbeat_ttl: '30s',
  heartbeat_secret: 'fedcba9876543210fedcba9876543210',
  session_ids: [],
  o2r,
};
const laterResponse = {
  ...initialResponse,
  heartbeat_secret: undefined,
  o2r: undefined,
  session_ids: ['abc'],
};

describe('HeartbeatResponseSchema', () => {
  it('accepts the registration response with secret and o2r', () => {
    expect(HeartbeatResponseSchema.parse(initialResponse)).toEqual(initialResponse);
  });

  it('accepts a later response without secret and o2r, and an older o2r with internal_url', () => {
    expect(issues(HeartbeatResponseSchema, laterResponse)).toEqual([]);
    expect(
      issues(HeartbeatResponseSchema, { ...initialResponse, o2r: { ...o2r, internal_url: o2r.url } }),
    ).toEqual([]);
  });

  it.each([
    [
      'o2r without a secret',
      { ...initialResponse, heartbeat_secret: undefined },
      ['o2r: o2r and heartbeat_secret are sent together, only on registration'],
    ],
    [
      'a secret without o2r',
      { ...initialResponse, o2r: undefined },
      ['o2r: o2r and heartbeat_secret are sent together, only on registration'],
    ],
    [
      'a duration without unit',
      { ...laterResponse, heartbeat_ttl: '30' },
      ['heartbeat_ttl: must be a Go duration such as "5s", "1m30s" or "250ms"'],
    ],
    [
      'a numeric interval',
      { ...laterResponse, heartbeat_interval: 5 },
      ['heartbeat_interval: Invalid input: expected string, received number'],
    ],
    [
      'missing session_ids',
      { ...laterResponse, session_ids: undefined },
      ['session_ids: Invalid input: expected array, received undefined'],
    ],
    [
      'an o2r channel of another mime type',
      { ...initialResponse, o2r: { ...o2r, mime_type: 'text/plain' } },
      ['o2r.mime_type: Invalid input: expected "application/json"'],
    ],
  ])('rejects %s', (_name, body, expected) => {
    expect(issues(HeartbeatResponseSchema, body)).toEqual(expected);
  });
});
