import { describe, expect, it } from '@jest/globals';
import { processWorkerName, workerConnectionPrefix } from './worker-name';

describe('worker names', () => {
  it('gives one name per process, without the spaces Redis client names refuse', () => {
    expect(processWorkerName()).toBe(processWorkerName());
    expect(processWorkerName()).toMatch(new RegExp(`^\\S+:${process.pid}:[0-9a-f]{8}$`));
  });

  it('matches the connection name BullMQ gives a named worker', () => {
    expect(workerConnectionPrefix('bull', 'instance-events')).toBe(
      `bull:${Buffer.from('instance-events').toString('base64')}:w:`,
    );
  });
});
