import { describe, expect, it } from '@jest/globals';
import { processWorkerName, workerConnectionPrefix, workerNamesInClientList } from './worker-name';

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

  it('reads the live worker names of one queue from a CLIENT LIST reply', () => {
    const prefix = workerConnectionPrefix('bull', 'session-events');
    const other = workerConnectionPrefix('bull', 'instance-events');
    const list = [
      `id=3 addr=127.0.0.1:50010 laddr=127.0.0.1:6379 fd=9 name=${prefix}host-a:41:0a1b2c3d age=4 db=0`,
      `id=4 addr=127.0.0.1:50012 laddr=127.0.0.1:6379 fd=10 name=${other}host-b:7:11223344 age=4 db=0`,
      'id=5 addr=127.0.0.1:50014 laddr=127.0.0.1:6379 fd=11 name= age=2 db=0',
      `id=6 addr=127.0.0.1:50016 laddr=127.0.0.1:6379 fd=12 name=${prefix} age=2 db=0`,
      `id=7 addr=127.0.0.1:50018 laddr=127.0.0.1:6379 fd=13 lib-name=${prefix}spoof name=x age=1 db=0`,
      `id=8 addr=127.0.0.1:50020 laddr=127.0.0.1:6379 fd=14 name=${prefix}host-c:9:55667788 age=1 db=0`,
      '',
    ].join('\r\n');
    expect([...workerNamesInClientList(list, prefix)].sort()).toEqual([
      'host-a:41:0a1b2c3d',
      'host-c:9:55667788',
    ]);
  });
});
