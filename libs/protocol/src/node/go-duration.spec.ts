import { describe, expect, it } from '@jest/globals';
import {
  formatGoDuration,
  formatGoDurationMs,
  GoDurationSchema,
  parseGoDuration,
  parseGoDurationMs,
  PositiveGoDurationMsSchema,
} from './go-duration';

// Expected values are those of Go's time.ParseDuration / time.Duration.String.
const parsed: Array<[string, bigint]> = [
  ['0', 0n],
  ['5s', 5_000_000_000n],
  ['30s', 30_000_000_000n],
  ['+5s', 5_000_000_000n],
  ['-5s', -5_000_000_000n],
  ['1.5h', 5_400_000_000_000n],
  ['2h45m', 9_900_000_000_000n],
  ['1m30s', 90_000_000_000n],
  ['300ms', 300_000_000n],
  ['.5s', 500_000_000n],
  ['1.s', 1_000_000_000n],
  ['10us', 10_000n],
  ['10µs', 10_000n],
  ['10μs', 10_000n],
  ['7ns', 7n],
  ['1.0000000009s', 1_000_000_000n],
  ['9223372036854775807ns', 9_223_372_036_854_775_807n],
  ['-9223372036854775808ns', -9_223_372_036_854_775_808n],
];

const rejected = [
  '',
  '5',
  's',
  '.s',
  '-',
  '5 s',
  '5S',
  '1d',
  '1h 2m',
  '9223372036854775808ns',
  'abc',
  '0.5',
  '5s.',
];

const formatted: Array<[bigint, string]> = [
  [0n, '0s'],
  [1n, '1ns'],
  [1_500n, '1.5µs'],
  [250_000_000n, '250ms'],
  [5_000_000_000n, '5s'],
  [30_000_000_000n, '30s'],
  [60_000_000_000n, '1m0s'],
  [90_500_000_000n, '1m30.5s'],
  [3_600_000_000_000n, '1h0m0s'],
  [9_900_000_000_000n, '2h45m0s'],
  [-2_500_000_000n, '-2.5s'],
  [1_000_000_001n, '1.000000001s'],
];

describe('parseGoDuration', () => {
  it.each(parsed)('parses %j', (text, ns) => {
    expect(parseGoDuration(text)).toBe(ns);
  });

  it.each(rejected)('rejects %j', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
});

describe('formatGoDuration', () => {
  it.each(formatted)('formats %p ns as %j', (ns, text) => {
    expect(formatGoDuration(ns)).toBe(text);
  });

  it.each(formatted)('round-trips %p ns', (ns) => {
    expect(parseGoDuration(formatGoDuration(ns))).toBe(ns);
  });
});

describe('millisecond helpers', () => {
  it('converts both ways', () => {
    expect(parseGoDurationMs('1m30s')).toBe(90_000);
    expect(parseGoDurationMs('1.5ms')).toBe(1.5);
    expect(parseGoDurationMs('nope')).toBeUndefined();
    expect(formatGoDurationMs(5_000)).toBe('5s');
    expect(formatGoDurationMs(0.25)).toBe('250µs');
    expect(() => formatGoDurationMs(Number.NaN)).toThrow(RangeError);
  });
});

describe('GoDurationSchema', () => {
  it('accepts Node examples and rejects numbers without a unit', () => {
    expect(GoDurationSchema.parse('5s')).toBe('5s');
    const result = GoDurationSchema.safeParse('5');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/Go duration/u);
  });

  it('parses positive durations to milliseconds', () => {
    expect(PositiveGoDurationMsSchema.parse('30s')).toBe(30_000);
    expect(PositiveGoDurationMsSchema.safeParse('0s').success).toBe(false);
    expect(PositiveGoDurationMsSchema.safeParse('-1s').success).toBe(false);
  });
});
