import { describe, expect, it } from '@jest/globals';
import { CpuQuantitySchema, MemoryQuantitySchema, cpuToMillicores, memoryToBytes } from './resources.schema';

describe('CPU quantities', () => {
  it.each([
    ['10m', 10],
    ['250m', 250],
    ['1', 1000],
    ['1.5', 1500],
    ['0.125', 125],
    ['64', 64_000],
  ])('%s is %d millicores', (quantity, millicores) => {
    expect(CpuQuantitySchema.safeParse(quantity).success).toBe(true);
    expect(cpuToMillicores(quantity)).toBe(millicores);
  });
  it.each(['9m', '0', '65', '64001m', '1.2345', '-1', '1 ', 'one', '0500m', ''])(
    'rejects %j with one issue',
    (q) => {
      const result = CpuQuantitySchema.safeParse(q);
      expect(result.success).toBe(false);
      expect(result.error?.issues).toHaveLength(1);
    },
  );
  it('refuses to convert an invalid quantity', () => {
    expect(() => cpuToMillicores('lots')).toThrow(RangeError);
  });
});

describe('memory quantities', () => {
  it.each([
    ['32Mi', 32 * 2 ** 20],
    ['256Mi', 268_435_456],
    ['1Gi', 2 ** 30],
    ['65536Ki', 2 ** 26],
    ['268435456', 268_435_456],
    ['256Gi', 256 * 2 ** 30],
  ])('%s is %d bytes', (quantity, bytes) => {
    expect(MemoryQuantitySchema.safeParse(quantity).success).toBe(true);
    expect(memoryToBytes(quantity)).toBe(bytes);
  });
  it.each(['31Mi', '257Gi', '1Ti', '1G', '512mi', '1.5Gi', '0', ''])('rejects %j with one issue', (q) => {
    const result = MemoryQuantitySchema.safeParse(q);
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
  });
});
