import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '@sandbox/testing';
import { memoryDestination } from '../__fixtures__/test-doubles';
import { createHealth } from '../health/health';
import { createLogger } from '../logging/logger';
import { createShutdown, SHUTDOWN_PHASES } from './shutdown';

function setup(timeoutMs = 1000) {
  const out = memoryDestination();
  const exits: number[] = [];
  const timers = new ManualClock(0);
  const health = createHealth();
  health.markReady();
  const shutdown = createShutdown({
    logger: createLogger({ svc: 't', destination: out }),
    timeoutMs,
    exit: (code) => exits.push(code),
    health,
    schedule: timers.schedule,
  });
  return { out, exits, timers, health, shutdown };
}

describe('createShutdown', () => {
  it('runs the phases in order, readiness → http → workers → queues → informers → redis, then exits 0', async () => {
    const { shutdown, exits } = setup();
    const calls: string[] = [];
    for (const phase of [...SHUTDOWN_PHASES].reverse())
      shutdown.register(phase, phase, () => calls.push(phase));
    await shutdown.run('SIGTERM');
    expect(calls).toEqual([...SHUTDOWN_PHASES]);
    expect(exits).toEqual([0]);
  });

  it('turns readiness off synchronously, before any hook runs', () => {
    const { shutdown, health } = setup();
    let stateInHook = '';
    shutdown.register('http', 'server', () => (stateInHook = health.state));
    void shutdown.run('SIGTERM');
    expect(health.state).toBe('stopping');
    expect(stateInHook).toBe('');
  });

  it('runs the hooks of a phase concurrently and waits for all before the next phase', async () => {
    const { shutdown } = setup();
    const events: string[] = [];
    const releases: (() => void)[] = [];
    for (const name of ['a', 'b']) {
      shutdown.register('workers', name, async () => {
        events.push(`${name} started`);
        await new Promise<void>((resolve) => releases.push(resolve));
        events.push(`${name} done`);
      });
    }
    shutdown.register('queues', 'queue', () => events.push('queue'));
    const running = shutdown.run('SIGTERM');
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['a started', 'b started']);
    releases.forEach((release) => release());
    await running;
    expect(events.slice(2, 4).sort()).toEqual(['a done', 'b done']);
    expect(events.slice(4)).toEqual(['queue']);
  });

  it('runs once: a second call neither reruns hooks nor exits again', async () => {
    const { shutdown, exits, out } = setup();
    let runs = 0;
    shutdown.register('redis', 'quit', () => runs++);
    const first = shutdown.run('SIGTERM');
    const second = shutdown.run('SIGINT');
    await Promise.all([first, second]);
    await shutdown.run('SIGTERM');
    expect(runs).toBe(1);
    expect(exits).toEqual([0]);
    expect(out.records().filter((record) => record['msg'] === 'shutdown already in progress')).toHaveLength(
      2,
    );
  });

  it('isolates a failing hook, logs it, runs the rest and exits 1', async () => {
    const { shutdown, exits, out } = setup();
    const calls: string[] = [];
    shutdown.register('workers', 'broken', () => Promise.reject(new Error('close failed')));
    shutdown.register('workers', 'fine', () => calls.push('fine'));
    shutdown.register('redis', 'quit', () => calls.push('quit'));
    await shutdown.run('SIGTERM');
    expect(calls).toEqual(['fine', 'quit']);
    expect(exits).toEqual([1]);
    expect(out.records()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'shutdown hook failed',
        phase: 'workers',
        hook: 'broken',
      }),
    );
  });

  it('exits 1 from the hard timer when a hook hangs, and cancels the timer when all finish', async () => {
    const hung = setup(250);
    hung.shutdown.register('workers', 'stuck', () => new Promise(() => undefined));
    void hung.shutdown.run('SIGTERM');
    expect(hung.timers.pendingDelays()).toEqual([250]);
    hung.timers.advance(250);
    expect(hung.exits).toEqual([1]);
    expect(hung.out.records()).toContainEqual(
      expect.objectContaining({ level: 'fatal', msg: 'shutdown timed out' }),
    );

    const quick = setup(250);
    await quick.shutdown.run('SIGTERM');
    expect(quick.timers.pendingDelays()).toEqual([]);
  });

  it('passes a requested exit code and refuses hooks registered after shutdown began', async () => {
    const { shutdown, exits } = setup();
    const running = shutdown.run('uncaughtException', 1);
    expect(() => shutdown.register('http', 'late', () => undefined)).toThrow('shutdown has begun');
    await running;
    expect(exits).toEqual([1]);
    expect(shutdown.started).toBe(true);
  });
});
