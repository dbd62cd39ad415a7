import { describe, expect, it } from '@jest/globals';
import {
  AppMetadataSchema,
  GpuDescriptionSchema,
  SessionCapacitySchema,
  UsdPriceSchema,
  utf8ByteLength,
} from './offer.schema';

describe('UsdPriceSchema', () => {
  it.each([
    { usd: '0.25', unit: 'hour' },
    { usd: '12', unit: 'fixed' },
    { usd: '0.000000000000000001', unit: 'fixed' },
    { usd: '999999999.5', unit: 'hour' },
  ])('accepts %j', (price) => {
    expect(UsdPriceSchema.safeParse(price).success).toBe(true);
  });
  it.each([
    { usd: '0', unit: 'hour' },
    { usd: '0.000', unit: 'hour' },
    { usd: '-1', unit: 'hour' },
    { usd: '1e3', unit: 'hour' },
    { usd: '01.5', unit: 'hour' },
    { usd: '1.', unit: 'hour' },
    { usd: '1000000000', unit: 'hour' },
    { usd: 0.5, unit: 'hour' },
    { usd: '1', unit: '720p' },
    { usd: '1', unit: 'hour', currency: 'usd' },
  ])('rejects %j', (price) => {
    expect(UsdPriceSchema.safeParse(price).success).toBe(false);
  });
  it('gives one readable issue for a zero price', () => {
    const result = UsdPriceSchema.safeParse({ usd: '0.0', unit: 'hour' });
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['usd', 'must be greater than zero (omit the price for a free app)'],
    ]);
  });
});

describe('AppMetadataSchema', () => {
  it('counts UTF-8 bytes, not characters', () => {
    expect(utf8ByteLength('é')).toBe(2);
    expect(utf8ByteLength('€')).toBe(3);
    expect(utf8ByteLength('😀')).toBe(4);
  });
  it('accepts up to 1024 bytes', () => {
    expect(AppMetadataSchema.safeParse('').success).toBe(true);
    expect(AppMetadataSchema.safeParse('a'.repeat(1024)).success).toBe(true);
    expect(AppMetadataSchema.safeParse('€'.repeat(341) + 'a').success).toBe(true);
    expect(AppMetadataSchema.safeParse(JSON.stringify({ model: 'llama', region: 'eu' })).success).toBe(true);
  });
  it('rejects 1025 bytes even when it is fewer characters', () => {
    expect(AppMetadataSchema.safeParse('a'.repeat(1025)).success).toBe(false);
    expect(AppMetadataSchema.safeParse('€'.repeat(342)).success).toBe(false);
  });
  it('rejects strings that are not well-formed Unicode', () => {
    expect(AppMetadataSchema.safeParse('bad \uD800 surrogate').success).toBe(false);
    expect(AppMetadataSchema.safeParse('bad \uDC00').success).toBe(false);
  });
});

describe('SessionCapacitySchema', () => {
  it('accepts 1..10000 whole numbers only', () => {
    expect(SessionCapacitySchema.safeParse(1).success).toBe(true);
    expect(SessionCapacitySchema.safeParse(10_000).success).toBe(true);
    expect(SessionCapacitySchema.safeParse(0).success).toBe(false);
    expect(SessionCapacitySchema.safeParse(10_001).success).toBe(false);
    expect(SessionCapacitySchema.safeParse(1.5).success).toBe(false);
  });
});

describe('GpuDescriptionSchema', () => {
  it('accepts partial descriptions', () => {
    expect(GpuDescriptionSchema.safeParse({ id: '0' }).success).toBe(true);
    expect(GpuDescriptionSchema.safeParse({ id: 'GPU-1', name: 'NVIDIA L4', vramMb: 24_576 }).success).toBe(
      true,
    );
  });
  it('rejects empty, negative or unknown fields', () => {
    expect(GpuDescriptionSchema.safeParse({}).success).toBe(false);
    expect(GpuDescriptionSchema.safeParse({ vramMb: -1 }).success).toBe(false);
    expect(GpuDescriptionSchema.safeParse({ vram_mb: 1 }).success).toBe(false);
  });
});
