import { describe, expect, it } from '@jest/globals';
import { LocalPublisher, TrickleStream } from './trickle-stream';

function published(count: number): TrickleStream {
  const stream = new TrickleStream('c', 'application/json');
  const publisher = new LocalPublisher(stream);
  for (let i = 0; i < count; i += 1) publisher.write(Buffer.from(`m${i}`));
  return stream;
}

describe('TrickleStream (Node retention)', () => {
  it('keeps four written segments plus the precreated next one', () => {
    const stream = published(7);
    expect(stream.nextWrite).toBe(7);
    expect(stream.slots.map((segment) => segment?.idx)).toEqual([5, 6, 7, 3, 4]);
    expect([0, 1, 2].map((seq) => stream.getForRead(seq).segment)).toEqual([undefined, undefined, undefined]);
    expect(stream.getForRead(3).segment?.chunks.map(String)).toEqual(['m3']);
  });

  it('resolves -1 to the write head and -2 to the latest write', () => {
    const stream = published(3);
    expect(stream.getForRead(-1).segment?.idx).toBe(3);
    expect(stream.getForRead(-2).segment?.chunks.map(String)).toEqual(['m2']);
    expect(new TrickleStream('e', 'x').getForRead(-2).segment?.idx).toBe(0);
  });

  it('precreates seq 1 before anything is written, but nothing further ahead', () => {
    const stream = new TrickleStream('c', 'x');
    expect(stream.getForRead(1).segment?.idx).toBe(1);
    expect(stream.getForRead(2).segment).toBeUndefined();
  });

  it('closes every segment on close and precreates nothing afterwards', () => {
    const stream = published(2);
    const head = stream.getForRead(2).segment;
    stream.close();
    expect(head?.closed).toBe(true);
    expect(stream.getForRead(2)).toEqual({ segment: undefined, latest: 2, closed: true });
    expect(new LocalPublisher(stream).write(Buffer.from('late'))).toBe(false);
  });
});
