import { describe, expect, it } from '@jest/globals';
import type { Obj } from './resilient-informer.fixture';
import { ManualClock } from '@sandbox/testing';
import { flush, setupWith } from './resilient-informer.fixture';

const setup = (silenceMs?: number) => setupWith(new ManualClock(0), silenceMs);

describe('createResilientInformer relists and lookups', () => {
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

  it('serves what the replacement already listed over the old cache, by name and in the list', async () => {
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
    expect(informer.list()).toEqual([edited, { name: 'b' }]);
    const added = { name: 'c' };
    sources[1]?.objects.push(added);
    expect(informer.list()).toEqual([edited, { name: 'b' }, added]);
    await informer.stop();
  });
});
