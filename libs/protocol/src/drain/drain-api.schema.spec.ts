import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../errors/format-zod-issues';
import { CreateDrainRequestSchema, ExtendDrainRequestSchema } from './drain-api.schema';
import { MAX_DRAIN_WINDOW_MS, parseDrainDurationMs, parseIsoDurationMs } from './drain-duration';

describe('drain durations', () => {
  it.each([
    ['6h', 6 * 3_600_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['0s', 0],
    ['PT6H', 6 * 3_600_000],
    ['PT1H30M', 5_400_000],
    ['PT0.5S', 500],
    ['P0DT12H', MAX_DRAIN_WINDOW_MS],
  ])('parses %s', (text, ms) => {
    expect(parseDrainDurationMs(text)).toBe(ms);
  });

  it.each(['', 'P', 'PT', 'P1Y', 'P1M', 'PT1H2', '6 hours', '6', 'h', '-PT1H'])('rejects %j', (text) => {
    expect(parseDrainDurationMs(text)).toBeUndefined();
  });

  it('keeps ISO parsing to days and time', () => {
    expect(parseIsoDurationMs('P1D')).toBe(86_400_000);
    expect(parseIsoDurationMs('P1W')).toBeUndefined();
  });
});

describe('CreateDrainRequestSchema', () => {
  it('accepts a restart or an image, with a window of at most 12 h', () => {
    expect(
      CreateDrainRequestSchema.parse({ window: '12h', reason: 'upgrade', target: { restart: true } }),
    ).toEqual({ window: MAX_DRAIN_WINDOW_MS, reason: 'upgrade', target: { restart: true } });
    expect(
      CreateDrainRequestSchema.parse({
        reason: 'upgrade',
        target: { image: 'livepeer/node:1.2.3' },
        quietPeriod: '0s',
      }),
    ).toEqual({ reason: 'upgrade', target: { image: 'livepeer/node:1.2.3' }, quietPeriod: 0 });
  });

  it('lists every bad field', () => {
    const result = CreateDrainRequestSchema.safeParse({
      window: '12h1s',
      reason: '',
      target: { restart: false },
      quietPeriod: 'soon',
      extra: 1,
    });
    expect(formatZodIssues(result.error ?? []).map((issue) => issue.path)).toEqual([
      'window',
      'reason',
      'target',
      'quietPeriod',
      '(root)',
    ]);
  });

  it('refuses a zero window and a quiet period over an hour', () => {
    expect(
      CreateDrainRequestSchema.safeParse({ window: '0s', reason: 'r', target: { restart: true } }).success,
    ).toBe(false);
    expect(
      CreateDrainRequestSchema.safeParse({ reason: 'r', target: { restart: true }, quietPeriod: '61m' })
        .success,
    ).toBe(false);
  });
});

describe('ExtendDrainRequestSchema', () => {
  it('takes a positive duration', () => {
    expect(ExtendDrainRequestSchema.parse({ by: 'PT2H' })).toEqual({ by: 7_200_000 });
    expect(ExtendDrainRequestSchema.safeParse({ by: '0s' }).success).toBe(false);
    expect(ExtendDrainRequestSchema.safeParse({}).success).toBe(false);
  });
});
