import { describe, expect, it } from '@jest/globals';
import { BoundedMemo } from './bounded-memo';

describe('BoundedMemo', () => {
  it('keeps values by key and forgets them all at once when full', () => {
    const memo = new BoundedMemo<number>(2);
    memo.set('a', 1);
    memo.set('b', 2);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([1, 2, undefined]);
    memo.set('c', 3);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([undefined, undefined, 3]);
  });
});
