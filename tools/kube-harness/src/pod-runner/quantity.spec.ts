import { describe, expect, it } from '@jest/globals';
import { cpuCores, memoryMiB, parseQuantity } from './quantity';

describe('resource quantities', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    ['0.25', 0.25],
    ['1k', 1_000],
    ['1e3', 1_000],
    ['1Ki', 1_024],
    ['1.5Gi', 1.5 * 2 ** 30],
  ])('parses %s', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 9);
  });

  it.each(['', 'abc', '1.2.3', '-1', '10Xi', '1 Gi'])('refuses %j', (text) => {
    expect(() => parseQuantity(text)).toThrow('not a resource quantity');
  });

  it('gives CPU in cores and memory in whole MiB rounded up', () => {
    expect(cpuCores('250m')).toBe(0.25);
    expect(memoryMiB('256Mi')).toBe(256);
    expect(memoryMiB('256M')).toBe(245);
    expect(memoryMiB('1Gi')).toBe(1_024);
  });
});
