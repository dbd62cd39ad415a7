import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { ManualClock } from '@sandbox/testing';
import { memoryDestination } from '../__fixtures__/test-doubles';
import { createLogger } from '../logging/logger';
import { createShutdown } from './shutdown';
import { installSignalHandlers } from './signals';

function setup() {
  const out = memoryDestination();
  const logger = createLogger({ svc: 't', destination: out });
  const exits: number[] = [];
  const shutdown = createShutdown({
    logger,
    timeoutMs: 1000,
    exit: (code) => exits.push(code),
    schedule: new ManualClock(0).schedule,
  });
  const source = new EventEmitter();
  const uninstall = installSignalHandlers(source, { shutdown, logger });
  return { out, exits, shutdown, source, uninstall };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('installSignalHandlers', () => {
  it('starts the shutdown once on SIGTERM or SIGINT; a second signal only logs', async () => {
    const { source, exits, out, shutdown } = setup();
    let hookRuns = 0;
    shutdown.register('http', 'server', () => hookRuns++);
    source.emit('SIGTERM');
    source.emit('SIGINT');
    await settle();
    expect(hookRuns).toBe(1);
    expect(exits).toEqual([0]);
    expect(out.records().map((record) => record['msg'])).toEqual(
      expect.arrayContaining(['signal received', 'shutdown started', 'shutdown already in progress']),
    );
  });

  it('logs an unhandled rejection and keeps running', async () => {
    const { source, exits, out, shutdown } = setup();
    source.emit('unhandledRejection', new Error('nobody awaited me'));
    await settle();
    expect(shutdown.started).toBe(false);
    expect(exits).toEqual([]);
    expect(out.records()).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'unhandled promise rejection' }),
    );
  });

  it('logs an uncaught exception and shuts down with exit code 1', async () => {
    const { source, exits, out } = setup();
    source.emit('uncaughtException', new Error('state unknown'));
    await settle();
    expect(exits).toEqual([1]);
    expect(out.records()).toContainEqual(
      expect.objectContaining({ level: 'fatal', msg: 'uncaught exception' }),
    );
  });

  it('removes every handler on uninstall', () => {
    const { source, uninstall } = setup();
    uninstall();
    for (const event of ['SIGTERM', 'SIGINT', 'unhandledRejection', 'uncaughtException']) {
      expect(source.listenerCount(event)).toBe(0);
    }
  });
});
