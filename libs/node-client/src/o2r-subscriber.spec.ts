import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '@sandbox/testing';
import { fetchTransport, type FetchLike } from './http-transport';
import { createO2RSubscriber, type O2RSubscriberEvent } from './o2r-subscriber';

/** A trickle channel as Node serves it: 5 segments kept, reads of the write head wait. */
class FakeChannel {
  segments = new Map<number, string>();
  nextWrite = 0;
  closed = false;
  gone = false;
  failures = 0;
  reads: number[] = [];
  private waiting: Array<() => void> = [];

  publish(text: string): void {
    this.segments.set(this.nextWrite, text);
    this.segments.delete(this.nextWrite - 5);
    this.nextWrite += 1;
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  readonly fetch: FetchLike = async (url, init) => {
    const seq = Number(url.split('/').at(-1));
    this.reads.push(seq);
    if (this.failures > 0) {
      this.failures -= 1;
      throw new TypeError('fetch failed');
    }
    if (this.gone) return new Response('Stream not found', { status: 404 });
    while (seq === this.nextWrite && !this.closed) {
      await new Promise<void>((resolve, reject) => {
        this.waiting.push(resolve);
        init.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
    }
    const text = this.segments.get(seq);
    const headers = { 'Lp-Trickle-Seq': String(seq), 'Lp-Trickle-Latest': String(this.nextWrite) };
    if (text !== undefined) return new Response(text, { status: 200, headers });
    if (this.closed)
      return new Response('', { status: 200, headers: { ...headers, 'Lp-Trickle-Closed': 'terminated' } });
    return new Response('Entry not found', { status: 470, headers });
  };

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

const reserved = (session: string) =>
  JSON.stringify({ event: 'reserved', session, timestamp: '2025-01-01T00:00:00.123456789Z' });
const KEEP = '{"keep":"alive"}';

function subscribe(
  channel: FakeChannel,
  overrides: { onMessage?: (message: unknown, seq: number) => Promise<void> | void; startSeq?: number } = {},
) {
  const clock = new ManualClock(0);
  const messages: Array<[unknown, number]> = [];
  const events: O2RSubscriberEvent[] = [];
  const subscriber = createO2RSubscriber({
    url: 'http://node/ai/trickle/chan',
    transport: fetchTransport(channel.fetch),
    schedule: clock.schedule,
    now: clock.now,
    retry: { initialMs: 100, maxMs: 1_000, random: () => 1 },
    ...(overrides.startSeq === undefined ? {} : { startSeq: overrides.startSeq }),
    onMessage: overrides.onMessage ?? ((message, seq) => void messages.push([message, seq])),
    onEvent: (event) => void events.push(event),
  });
  return { clock, messages, events, subscriber };
}

describe('O2R subscriber', () => {
  it('delivers every segment in order, keepalives included, from seq 0', async () => {
    const channel = new FakeChannel();
    const { clock, messages, subscriber } = subscribe(channel);
    channel.publish(KEEP);
    channel.publish(reserved('s1'));
    await clock.settle();
    expect(messages).toEqual([
      [{ keep: 'alive' }, 0],
      [{ event: 'reserved', session: 's1', timestamp: '2025-01-01T00:00:00.123456789Z' }, 1],
    ]);
    expect(subscriber.seq).toBe(2);
    expect(subscriber.connected).toBe(true);
    await subscriber.stop();
    expect(await subscriber.done).toBe('stopped');
  });

  it('resumes from Lp-Trickle-Latest after a 470', async () => {
    const channel = new FakeChannel();
    for (let index = 0; index < 9; index += 1) channel.publish(KEEP);
    const { clock, messages, events, subscriber } = subscribe(channel, { startSeq: 1 });
    await clock.settle();
    expect(events).toContainEqual({ type: 'gap', requestedSeq: 1, resumeSeq: 9 });
    channel.publish(reserved('s2'));
    await clock.settle();
    expect(messages.map(([, seq]) => seq)).toEqual([9]);
    await subscriber.stop();
  });

  it('ends on a closed channel and on an unknown one', async () => {
    const channel = new FakeChannel();
    const first = subscribe(channel);
    await first.clock.settle();
    channel.close();
    expect(await first.subscriber.done).toBe('closed');
    channel.gone = true;
    const second = subscribe(channel);
    expect(await second.subscriber.done).toBe('gone');
    expect(second.events).toContainEqual({ type: 'end', reason: 'gone' });
  });

  it('delivers a message again when its handler fails, and only moves on after success', async () => {
    const channel = new FakeChannel();
    let attempts = 0;
    const { clock, subscriber } = subscribe(channel, {
      onMessage: () => {
        attempts += 1;
        if (attempts < 3) throw new Error('redis down');
      },
    });
    channel.publish(reserved('s3'));
    await clock.settle();
    expect(subscriber.seq).toBe(0);
    await clock.advanceAndSettle(5_000);
    expect(attempts).toBe(3);
    expect(subscriber.seq).toBe(1);
    await subscriber.stop();
  });

  it('drops a silent long-poll after the keepalive timeout and polls the same segment again', async () => {
    const channel = new FakeChannel();
    const { clock, events, messages, subscriber } = subscribe(channel);
    await clock.advanceAndSettle(24_000);
    expect(events).toEqual([]);
    await clock.advanceAndSettle(1_000);
    expect(events).toContainEqual({ type: 'reconnect', reason: 'keepalive-timeout' });
    expect(channel.reads).toEqual([0, 0]);
    channel.publish(reserved('s4'));
    await clock.settle();
    expect(messages.map(([, seq]) => seq)).toEqual([0]);
    await subscriber.stop();
  });

  it('retries network failures with backoff', async () => {
    const channel = new FakeChannel();
    channel.failures = 2;
    const { clock, events, messages, subscriber } = subscribe(channel);
    await clock.settle();
    expect(events).toEqual([{ type: 'reconnect', reason: 'network' }]);
    await clock.advanceAndSettle(100);
    await clock.advanceAndSettle(200);
    channel.publish(KEEP);
    await clock.settle();
    expect(messages).toHaveLength(1);
    expect(events.filter((event) => event.type === 'reconnect')).toHaveLength(2);
    await subscriber.stop();
  });

  it('skips messages that are not O2R messages', async () => {
    const channel = new FakeChannel();
    const { clock, events, messages, subscriber } = subscribe(channel);
    channel.publish('{"event":"unregistered","session":""}');
    channel.publish('not json');
    channel.publish(KEEP);
    await clock.settle();
    expect(events.filter((event) => event.type === 'invalid-message')).toHaveLength(2);
    expect(messages).toEqual([[{ keep: 'alive' }, 2]]);
    await subscriber.stop();
  });
  it('keeps reading while a slow handler works, so a burst beyond what Node keeps is not lost', async () => {
    const channel = new FakeChannel();
    const handled: number[] = [];
    let release: () => void = () => undefined;
    const { clock, events, subscriber } = subscribe(channel, {
      onMessage: async (_message, seq) => {
        // The first message blocks its handler (a queue write that hangs) until the burst is over.
        if (seq === 0) await new Promise<void>((resolve) => (release = resolve));
        handled.push(seq);
      },
    });
    for (let index = 0; index < 12; index += 1) {
      channel.publish(reserved(`s${index}`));
      await clock.settle();
    }
    expect(handled).toEqual([]);
    // The read of the next segment is outstanding while the first is still being handled.
    expect(channel.reads.at(-1)).toBe(12);
    expect(subscriber.seq).toBe(0);
    release();
    await clock.settle();
    expect(handled).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(subscriber.seq).toBe(12);
    expect(events.filter((event) => event.type === 'gap')).toEqual([]);
    await subscriber.stop();
  });

  it('reports the end of a channel only after handing over what it read before', async () => {
    const channel = new FakeChannel();
    const handled: number[] = [];
    let release: () => void = () => undefined;
    const { clock, events, subscriber } = subscribe(channel, {
      onMessage: async (_message, seq) => {
        if (seq === 0) await new Promise<void>((resolve) => (release = resolve));
        handled.push(seq);
      },
    });
    channel.publish(reserved('a'));
    channel.publish(reserved('b'));
    await clock.settle();
    channel.close();
    await clock.settle();
    expect(events.filter((event) => event.type === 'end')).toEqual([]);
    release();
    expect(await subscriber.done).toBe('closed');
    expect(handled).toEqual([0, 1]);
    expect(events.at(-1)).toEqual({ type: 'end', reason: 'closed' });
  });
});
