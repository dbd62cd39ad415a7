import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { formatZodIssues } from '../errors/format-zod-issues';
import {
  INSTANCE_EVENTS_QUEUE,
  InstanceGoneSchema,
  InstanceReadySchema,
  InstanceWithdrawSchema,
} from './instance-events.queue';

function pathsOf(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : formatZodIssues(result.error).map((issue) => issue.path);
}

const ready = {
  instanceId: 'example-app-7f3k2',
  app: 'example-app',
  url: 'http://10.42.0.17:8080',
  capacity: 4,
  mode: 'persistent',
  kind: 'reusable',
  price: { usd: '0.50', unit: 'hour' },
  metadata: '{"region":"eu-west"}',
  gpu: { name: 'NVIDIA L4', vramMb: 24_576 },
  version: '1.2.0',
  readyAt: '2025-06-01T12:00:00.000Z',
};

describe('instance-events queue', () => {
  it('has a persistent name and a closed set of jobs', () => {
    expect(INSTANCE_EVENTS_QUEUE.name).toBe('instance-events');
    expect(Object.keys(INSTANCE_EVENTS_QUEUE.jobs)).toEqual([
      'instance-ready',
      'instance-withdraw',
      'instance-gone',
    ]);
  });

  describe('instance-ready', () => {
    it('accepts a full reusable instance and a minimal single-session one', () => {
      expect(InstanceReadySchema.parse(ready)).toEqual(ready);
      const minimal = { ...ready, capacity: 1, kind: 'single-session', mode: 'single-shot', metadata: '' };
      delete (minimal as Partial<typeof minimal>).price;
      delete (minimal as Partial<typeof minimal>).gpu;
      delete (minimal as Partial<typeof minimal>).version;
      expect(InstanceReadySchema.safeParse(minimal).success).toBe(true);
    });

    it('rejects a malformed event with the path of every bad field', () => {
      const bad = {
        ...ready,
        instanceId: 'Bad_Id',
        url: 'tcp://10.0.0.1:1',
        capacity: 0,
        mode: 'batch',
        price: { usd: '-1', unit: 'hour' },
        metadata: 'x'.repeat(1025),
        readyAt: 1_717_243_200_000,
      };
      expect(pathsOf(InstanceReadySchema, bad).sort()).toEqual(
        ['instanceId', 'url', 'capacity', 'mode', 'price.usd', 'metadata', 'readyAt'].sort(),
      );
    });

    it('requires capacity 1 for a single-session instance', () => {
      expect(pathsOf(InstanceReadySchema, { ...ready, kind: 'single-session', capacity: 2 })).toEqual([
        'capacity',
      ]);
    });

    it('rejects unknown fields and missing ones', () => {
      expect(pathsOf(InstanceReadySchema, { ...ready, runnerSecret: 'x' })).toEqual(['(root)']);
      const { url: _url, ...withoutUrl } = ready;
      expect(pathsOf(InstanceReadySchema, withoutUrl)).toEqual(['url']);
    });
  });

  describe('instance-withdraw', () => {
    it('accepts a withdrawal', () => {
      const withdraw = {
        instanceId: 'example-app-7f3k2',
        app: 'example-app',
        reason: 'scale-down',
        immediate: false,
      };
      expect(InstanceWithdrawSchema.parse(withdraw)).toEqual(withdraw);
    });
    it('rejects a non-boolean immediate and an empty reason', () => {
      expect(
        pathsOf(InstanceWithdrawSchema, { instanceId: 'a', app: 'a', reason: '', immediate: 'yes' }).sort(),
      ).toEqual(['immediate', 'reason']);
    });
  });

  describe('instance-gone', () => {
    it('accepts each outcome, with or without a reason', () => {
      for (const outcome of ['completed', 'failed', 'evicted']) {
        expect(InstanceGoneSchema.safeParse({ instanceId: 'a1', app: 'a', outcome }).success).toBe(true);
      }
      expect(
        InstanceGoneSchema.safeParse({
          instanceId: 'a1',
          app: 'a',
          outcome: 'failed',
          reason: 'exit code 137',
        }).success,
      ).toBe(true);
    });
    it('rejects an unknown outcome', () => {
      expect(pathsOf(InstanceGoneSchema, { instanceId: 'a1', app: 'a', outcome: 'crashed' })).toEqual([
        'outcome',
      ]);
    });
  });
});
