import { describe, expect, it } from '@jest/globals';
import type { InstanceRecord } from '../store/instance-record';
import { lastStartFailure } from './start-failure';

const record = (id: string, fields: Partial<InstanceRecord>): InstanceRecord =>
  ({ id, app: 'demo', state: 'gone', createdAt: 1, ...fields }) as InstanceRecord;

describe('lastStartFailure', () => {
  it('shows the latest instance that failed without ever being ready, with its reason', () => {
    const records = [
      record('aaaaaaaaaa', { outcome: 'failed', goneAt: 10, reason: 'instance failed to start' }),
      record('bbbbbbbbbb', {
        outcome: 'failed',
        goneAt: 20,
        reason: 'the host has not enough capacity left',
      }),
      record('cccccccccc', { app: 'other', outcome: 'failed', goneAt: 30, reason: 'x' }),
      record('dddddddddd', {
        outcome: 'failed',
        goneAt: 40,
        readyAt: 5,
        reason: 'registration refused (400)',
      }),
    ];
    expect(lastStartFailure('demo', records)).toEqual({
      instanceId: 'bbbbbbbbbb',
      reason: 'the host has not enough capacity left',
      at: new Date(20).toISOString(),
    });
  });

  it('shows nothing once an instance became ready after the failure', () => {
    const records = [
      record('aaaaaaaaaa', { outcome: 'failed', goneAt: 10, reason: 'r' }),
      record('bbbbbbbbbb', { state: 'ready', readyAt: 15 }),
    ];
    expect(lastStartFailure('demo', records)).toBeUndefined();
  });
});
