import { describe, expect, it } from '@jest/globals';
import { errorPercent, expectedGoodput } from './goodput';

describe('expected goodput of a shaped link', () => {
  it('leaves 1448 payload bytes of every 1514-byte frame at a 1500-byte MTU', () => {
    const expected = expectedGoodput(50, 1500);
    expect(expected).toMatchObject({ payloadBytes: 1448, frameBytes: 1514 });
    expect(expected.ratio).toBeCloseTo(0.9564, 4);
    expect(expected.goodputMbit).toBeCloseTo(47.82, 2);
  });

  it('wastes less of a jumbo-frame link, and signs errors', () => {
    expect(expectedGoodput(200, 9000).ratio).toBeCloseTo(8948 / 9014, 6);
    expect(errorPercent(47, 50)).toBeCloseTo(-6, 6);
    expect(errorPercent(51, 50)).toBeCloseTo(2, 6);
  });
});
