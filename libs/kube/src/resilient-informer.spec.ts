import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { InformerSource } from './resilient-informer';
import { createResilientInformer } from './resilient-informer';

interface Obj {
  name: string;
}

/** A scripted informer: `start()` resolves or rejects when the test says so. */
class FakeSource implements InformerSource<Obj> {
  objects: Obj[] = [];
  stopped = false;
  private handlers = new Map<string, ((arg?: unknown) => void)[]>();
  private settle?: { resolve: () => void; reject: (error: unknown) => void };
  on(verb: string, callback: (arg: Obj) => void): void {
    this.handlers.set(verb, [...(this.handlers.get(verb) ?? []), callback as (arg?: unknown) => void]);
  }
  start(): Promise<void> {
    return new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }
  list(): Obj[] {
    return this.objects;
  }
  get(name: string): Obj | undefined {
    return this.objects.find((object) => object.name === name);
  }
  listed(objects: Obj[]): void {
    this.objects = objects;
    this.settle?.resolve();
  }
  failStart(error: unknown): void {
    this.settle?.reject(error);
  }
  fire(verb: string, arg?: unknown): void {
    for (const handler of this.handlers.get(verb) ?? []) handler(arg);
  }
}

/** Timers driven by the test: `advance(ms)` fires what is due. */
function fakeTime() {
  let now = 0;
  let timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  return {
    now: () => now,
    schedule: (fn: () => void, ms: number) => {
      const timer = { at: now + ms, fn, cancelled: false };
      timers.push(timer);
      return { cancel: () => void (timer.cancelled = true) };
    },
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const due = timers.filter((t) => !t.cancelled && t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        now = due.at;
        due.cancelled = true;
        due.fn();
      }
      now = end;
      timers = timers.filter((t) => !t.cancelled);
    },
    pending: () => timers.filter((t) => !t.cancelled).length,
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function setup(silenceMs = 300_000) {
  const time = fakeTime();
  const sources: FakeSource[] = [];
  const informer = createResilientInformer<Obj>({
    create: () => {
      const source = new FakeSource();
      sources.push(source);
      return source;
    },
    keyOf: (o) => o.name,
    logger: pino({ level: 'silent' }),
    name: 'pods',
    schedule: time.schedule,
    now: time.now,
    silenceMs,
    random: () => 1,
  });
  const events: string[] = [];
  for (const verb of ['add', 'update', 'delete'] as const)
    informer.on(verb, (o) => events.push(`${verb}:${o.name}`));
  return { time, sources, informer, events };
}

describe('createResilientInformer', () => {
  it('is synced after the first list and forwards object events', async () => {
    const { sources, informer, events } = setup();
    informer.start();
    expect(informer.synced()).toBe(false);
    sources[0]?.fire('add', { name: 'a' });
    sources[0]?.listed([{ name: 'a' }]);
    await flush();
    expect(informer.synced()).toBe(true);
    expect(informer.list()).toEqual([{ name: 'a' }]);
    expect(events).toEqual(['add:a']);
    await informer.stop();
  });

  it('restarts after an error with growing, capped backoff and keeps the old cache meanwhile', async () => {
    const { time, sources, informer, events } = setup();
    informer.start();
    sources[0]?.listed([{ name: 'a' }, { name: 'b' }]);
    await flush();
    sources[0]?.fire('error', new Error('watch failed'));
    expect(sources[0]?.stopped).toBe(true);
    time.advance(999);
    expect(sources).toHaveLength(1);
    expect(informer.list()).toHaveLength(2);
    time.advance(1);
    expect(sources).toHaveLength(2);
    sources[1]?.failStart(new Error('list failed'));
    await flush();
    time.advance(1_999);
    expect(sources).toHaveLength(2);
    time.advance(1);
    expect(sources).toHaveLength(3);
    sources[2]?.listed([{ name: 'a' }]);
    await flush();
    expect(informer.list()).toEqual([{ name: 'a' }]);
    expect(events).toEqual(['delete:b']);
    expect(informer.restarts()).toBe(2);
    // A success resets the backoff.
    sources[2]?.fire('error', new Error('again'));
    time.advance(1_000);
    expect(sources).toHaveLength(4);
    await informer.stop();
  });

  it('ignores events and errors from an informer it has replaced', async () => {
    const { time, sources, informer, events } = setup();
    informer.start();
    sources[0]?.listed([]);
    await flush();
    sources[0]?.fire('error', new Error('x'));
    time.advance(1_000);
    sources[0]?.fire('add', { name: 'stale' });
    sources[0]?.fire('error', new Error('stale error'));
    time.advance(60_000);
    expect(sources).toHaveLength(2);
    expect(events).toEqual([]);
    await informer.stop();
  });

  it('relists after the silence limit without object events, and not while events flow', async () => {
    const { time, sources, informer } = setup(300_000);
    informer.start();
    sources[0]?.listed([]);
    await flush();
    time.advance(200_000);
    sources[0]?.fire('update', { name: 'a' });
    time.advance(200_000);
    expect(sources).toHaveLength(1);
    time.advance(100_000);
    expect(sources).toHaveLength(2);
    expect(sources[0]?.stopped).toBe(true);
    sources[1]?.listed([]);
    await flush();
    time.advance(299_999);
    expect(sources).toHaveLength(2);
    time.advance(1);
    expect(sources).toHaveLength(3);
    await informer.stop();
  });

  it('relists at once on 410 Gone, without backing off', async () => {
    const { time, sources, informer } = setup();
    informer.start();
    sources[0]?.listed([{ name: 'a' }]);
    await flush();
    sources[0]?.fire('error', Object.assign(new Error('too old resource version'), { code: 410 }));
    time.advance(0);
    expect(sources).toHaveLength(2);
    expect(sources[0]?.stopped).toBe(true);
    sources[1]?.fire('error', Object.assign(new Error('expired'), { code: 410 }));
    time.advance(0);
    expect(sources).toHaveLength(3);
    // The backoff did not grow: an ordinary error afterwards waits the first delay.
    sources[2]?.listed([]);
    await flush();
    sources[2]?.fire('error', new Error('watch failed'));
    time.advance(1_000);
    expect(sources).toHaveLength(4);
    await informer.stop();
  });

  it('looks objects up by name: in the replacement while it lists, else in the served cache', async () => {
    const { time, sources, informer } = setup();
    informer.start();
    sources[0]?.listed([{ name: 'a' }, { name: 'b' }]);
    await flush();
    expect(informer.get('a')).toEqual({ name: 'a' });
    expect(informer.get('z')).toBeUndefined();
    sources[0]?.fire('error', new Error('x'));
    time.advance(1_000);
    const edited = { name: 'a', edited: true } as Obj;
    if (sources[1]) sources[1].objects = [edited];
    expect(informer.get('a')).toBe(edited);
    expect(informer.get('b')).toEqual({ name: 'b' });
    expect(informer.list()).toHaveLength(2);
    await informer.stop();
  });

  it('stops everything, including pending restarts', async () => {
    const { time, sources, informer } = setup();
    informer.start();
    sources[0]?.failStart(new Error('down'));
    await flush();
    await informer.stop();
    time.advance(120_000);
    expect(sources).toHaveLength(1);
    expect(time.pending()).toBe(0);
  });
});
