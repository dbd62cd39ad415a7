import { describe, expect, it } from '@jest/globals';
import { O2RSlots } from './o2r-slots';

describe('O2R slots', () => {
  it('hands out at most max slots and gives a freed one to the longest waiter', () => {
    const slots = new O2RSlots(2);
    const [a, b, c, d] = [{}, {}, {}, {}];
    const woken: string[] = [];
    expect(slots.acquire(a, () => woken.push('a'))).toBe(true);
    expect(slots.acquire(b, () => woken.push('b'))).toBe(true);
    expect(slots.acquire(a, () => woken.push('a'))).toBe(true);
    expect(slots.acquire(c, () => woken.push('c'))).toBe(false);
    expect(slots.acquire(d, () => woken.push('d'))).toBe(false);
    expect(slots.used).toBe(2);
    slots.release(d);
    slots.release(a);
    expect(woken).toEqual(['c']);
    expect(slots.acquire(c, () => woken.push('c'))).toBe(true);
    slots.release(b);
    expect(woken).toEqual(['c']);
    expect(slots.used).toBe(1);
  });
});
