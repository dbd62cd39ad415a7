import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '@sandbox/testing';
import { flush, setupWith } from './resilient-informer.fixture';

const setup = (silenceMs?: number) => setupWith(new ManualClock(0), silenceMs);

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

  it('stops everything, including pending restarts', async () => {
    const { time, sources, informer } = setup();
    informer.start();
    sources[0]?.failStart(new Error('down'));
    await flush();
    await informer.stop();
    time.advance(120_000);
    expect(sources).toHaveLength(1);
    expect(time.pending).toBe(0);
  });
});
