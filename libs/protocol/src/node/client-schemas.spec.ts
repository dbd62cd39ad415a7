import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { DiscoveryResponseSchema, runnerIdFromDiscoveryUrl } from './discovery.schema';
import { NodeErrorBodySchema, NodeOkBodySchema } from './node-errors.schema';
import { isO2RSessionEvent, O2RMessageSchema } from './o2r.schema';
import {
  GenerateLivePaymentRequestSchema,
  GenerateLivePaymentResponseSchema,
  PaymentChallengeSchema,
  RefreshPaymentRequestSchema,
} from './payment.schema';
import { CreateChannelsRequestSchema, ReservationResponseSchema } from './session.schema';

function issues(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const svc = 'http://127.0.0.1:8935';
const sid = '0123456789abcdef0123456789abcdef';

describe('O2RMessageSchema', () => {
  it.each([
    ['a keepalive', { keep: 'alive' }],
    ['reserved', { event: 'reserved', session: sid, timestamp: '2025-06-01T10:00:00.123456789Z' }],
    ['released without fraction', { event: 'released', session: sid, timestamp: '2025-06-01T10:00:00Z' }],
  ])('accepts %s', (_name, message) => {
    expect(issues(O2RMessageSchema, message)).toEqual([]);
  });

  it('tells session events from keepalives', () => {
    expect(isO2RSessionEvent(O2RMessageSchema.parse({ keep: 'alive' }))).toBe(false);
    expect(
      isO2RSessionEvent(
        O2RMessageSchema.parse({ event: 'reserved', session: sid, timestamp: '2025-06-01T10:00:00Z' }),
      ),
    ).toBe(true);
  });

  it.each([
    [
      'an internal unregistered event',
      { event: 'unregistered', session: '', timestamp: '2025-06-01T10:00:00Z' },
    ],
    ['a non-UTC timestamp', { event: 'reserved', session: sid, timestamp: '2025-06-01T10:00:00+02:00' }],
    ['a keepalive with another value', { keep: 'dead' }],
  ])('rejects %s', (_name, message) => {
    expect(issues(O2RMessageSchema, message).length).toBeGreaterThan(0);
  });
});

const freeRunner = {
  url: `${svc}/apps/inst-1/session`,
  app: 'echo',
  mode: 'persistent',
  capacity: 2,
  capacity_used: 1,
  capacity_available: 1,
  price_info: { price: 0, currency: '', unit: '' },
};
const paidRunner = {
  url: `${svc}/apps/inst-2/app`,
  app: 'hello',
  version: '1.0',
  metadata: 'm',
  gpu: { id: '0' },
  mode: 'single-shot',
  capacity: 1,
  capacity_used: 0,
  capacity_available: 1,
  price_info: { price: 92593, price_usd: 0.000138888, currency: 'wei', unit: 'seconds' },
};

describe('DiscoveryResponseSchema', () => {
  it('accepts Node discovery with free and paid runners, and the empty form', () => {
    expect(issues(DiscoveryResponseSchema, [{ address: svc, runners: [freeRunner, paidRunner] }])).toEqual(
      [],
    );
    expect(issues(DiscoveryResponseSchema, [{ address: svc, runners: [] }])).toEqual([]);
  });

  it('accepts a free runner without price_info, as newer Nodes send it', () => {
    const { price_info: _omitted, ...withoutPrice } = freeRunner;
    expect(issues(DiscoveryResponseSchema, [{ address: svc, runners: [withoutPrice, paidRunner] }])).toEqual(
      [],
    );
  });

  it.each([
    [
      'a full runner',
      { ...freeRunner, capacity_available: 0 },
      ['0.runners.0.capacity_available: Too small: expected number to be >=1'],
    ],
    [
      'a paid price without unit',
      { ...freeRunner, price_info: { price: 5, currency: 'wei', unit: '' } },
      [
        '0.runners.0.price_info: a free price has empty currency and unit; a paid price is in wei per seconds or fixed',
      ],
    ],
    [
      'a 720p unit',
      { ...freeRunner, price_info: { price: 5, currency: 'wei', unit: '720p-pixel-seconds' } },
      ['0.runners.0.price_info.unit: Invalid option: expected one of ""|"seconds"|"fixed"'],
    ],
    [
      'an unknown mode',
      { ...freeRunner, mode: 'single_shot' },
      ['0.runners.0.mode: Invalid option: expected one of "persistent"|"single-shot"'],
    ],
  ])('rejects %s', (_name, runner, expected) => {
    expect(issues(DiscoveryResponseSchema, [{ address: svc, runners: [runner] }])).toEqual(expected);
  });

  it('derives runner ids from discovery URLs', () => {
    expect(runnerIdFromDiscoveryUrl(freeRunner.url)).toBe('inst-1');
    expect(runnerIdFromDiscoveryUrl(paidRunner.url)).toBe('inst-2');
    expect(runnerIdFromDiscoveryUrl(`${svc}/base/apps/r_3/session`)).toBe('r_3');
    expect(runnerIdFromDiscoveryUrl(`${svc}/run/${sid}`)).toBeUndefined();
  });
});

describe('reservation, stop and errors', () => {
  it('accepts the documented bodies', () => {
    const reservation = {
      session_id: sid,
      app_url: `${svc}/apps/r/session/${sid}/app`,
      control_url: `${svc}/apps/r/session/${sid}`,
    };
    expect(issues(ReservationResponseSchema, reservation)).toEqual([]);
    expect(issues(NodeOkBodySchema, { ok: true })).toEqual([]);
    expect(issues(NodeErrorBodySchema, { error: 'runner at capacity' })).toEqual([]);
  });

  it('rejects malformed bodies with paths', () => {
    expect(issues(ReservationResponseSchema, { session_id: 'a b', app_url: 'x', control_url: svc })).toEqual([
      "session_id: must contain only ASCII letters, digits, '-' or '_' and be 1 to 128 bytes",
      'app_url: must be an absolute HTTP or HTTPS URL',
    ]);
    expect(issues(NodeErrorBodySchema, { error: { code: 'x' } })).toEqual([
      'error: Invalid input: expected string, received object',
    ]);
    expect(issues(NodeErrorBodySchema, { error: 'x', requestId: 'r' })).toEqual([
      ': Unrecognized key: "requestId"',
    ]);
    expect(issues(CreateChannelsRequestSchema, { channels: [{ name: '' }] })).toEqual([
      'channels.0.name: Too small: expected string to have >=1 characters',
    ]);
  });
});

const challenge = {
  payment_params: 'CgQIARAC',
  orchestrator: svc,
  manifest_id: sid,
  payment_url: `${svc}/apps/r/session/${sid}/payment`,
};

describe('payment bodies', () => {
  it('accepts the 402 challenge, with and without payment_interval_ms', () => {
    expect(issues(PaymentChallengeSchema, challenge)).toEqual([]);
    expect(issues(PaymentChallengeSchema, { ...challenge, payment_interval_ms: 5000 })).toEqual([]);
  });

  it('rejects a challenge with a non-base64 payment_params or a missing payment_url', () => {
    expect(
      issues(PaymentChallengeSchema, { ...challenge, payment_params: 'not base64!', payment_url: undefined }),
    ).toEqual([
      'payment_params: must be standard base64',
      'payment_url: Invalid input: expected string, received undefined',
    ]);
  });

  it('validates refresh and signer bodies', () => {
    expect(issues(RefreshPaymentRequestSchema, { sender: `0x${'ab'.repeat(20)}`, manifest_id: sid })).toEqual(
      [],
    );
    expect(issues(RefreshPaymentRequestSchema, { sender: '0x12', manifest_id: sid })).toEqual([
      'sender: must be 0x followed by 40 hex characters',
    ]);
    const request = {
      orchestrator: 'CgQIARAC',
      type: 'live',
      ManifestID: sid,
      maxPrice: { price: 10, currency: 'wei', unit: 'fixed' },
    };
    expect(issues(GenerateLivePaymentRequestSchema, request)).toEqual([
      'maxPrice.unit: maxPrice.unit must be seconds for live and fixed for fixed',
    ]);
    expect(
      issues(GenerateLivePaymentRequestSchema, { ...request, type: 'lv2v', maxPrice: undefined }),
    ).toEqual(['type: Invalid option: expected one of "live"|"fixed"']);
    const response = { payment: 'AAAA', segCreds: 'AAAA', state: { state: 'AAAA', sig: 'AAAA' } };
    expect(issues(GenerateLivePaymentResponseSchema, response)).toEqual([]);
  });
});
