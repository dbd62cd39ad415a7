import { describe, expect, it } from '@jest/globals';
import { HeartbeatRequestSchema, InstanceReadySchema } from '@sandbox/protocol';
import { encodeHeartbeatBody } from '@sandbox/node-client';
import { heartbeatBody } from './heartbeat-body';

const instance = InstanceReadySchema.parse({
  instanceId: 'inst-1',
  app: 'echo',
  url: 'http://10.42.0.7:8080',
  capacity: 3,
  mode: 'single-shot',
  kind: 'reusable',
  price: { usd: '0.000000000000000001', unit: 'fixed' },
  metadata: 'm',
  gpu: { id: '0', name: 'L4', vramMb: 24_576 },
  version: '2.0',
  readyAt: '2025-01-01T00:00:00.000Z',
});

describe('heartbeatBody', () => {
  it('advertises the spec, always with status ready', () => {
    const body = heartbeatBody(instance, 'inst-1', 2, ['s1']);
    expect(HeartbeatRequestSchema.parse(body)).toEqual({
      runner_id: 'inst-1',
      runner_url: 'http://10.42.0.7:8080',
      app: 'echo',
      capacity: 2,
      mode: 'single-shot',
      status: 'ready',
      metadata: 'm',
      session_ids: ['s1'],
      price_info: { price: '0.000000000000000001', currency: 'usd', unit: 'fixed' },
      gpu: { id: '0', name: 'L4', vram_mb: 24_576 },
      version: '2.0',
    });
    expect(encodeHeartbeatBody(body)).toContain('"price":0.000000000000000001');
  });

  it('leaves price, gpu and version out for an instance without them (a free app)', () => {
    const { price: _price, gpu: _gpu, version: _version, ...rest } = instance;
    const body = heartbeatBody({ ...rest, mode: 'persistent' } as typeof instance, 'inst-1', 3, []);
    expect(body).not.toHaveProperty('price_info');
    expect(body).not.toHaveProperty('gpu');
    expect(body).not.toHaveProperty('version');
  });
});
