import { describe, expect, it } from '@jest/globals';
import { InstanceUrlSchema, ReasonSchema, TimestampSchema, VersionSchema } from './fields.schema';

describe('TimestampSchema', () => {
  it.each(['2025-06-01T12:00:00Z', '2025-06-01T12:00:00.123Z', new Date(0).toISOString()])(
    'accepts %s',
    (value) => {
      expect(TimestampSchema.safeParse(value).success).toBe(true);
    },
  );
  it.each([
    '2025-06-01',
    '2025-06-01T12:00:00+02:00',
    '2025-06-01 12:00:00Z',
    'yesterday',
    1_717_243_200_000,
  ])('rejects %j', (value) => {
    expect(TimestampSchema.safeParse(value).success).toBe(false);
  });
});

describe('InstanceUrlSchema', () => {
  it.each([
    'http://10.42.0.17:8080',
    'http://127.0.0.1:41234/',
    'https://app.internal:8443/base?x=1',
    'http://[fd00::5]:80',
  ])('accepts %s', (url) => {
    expect(InstanceUrlSchema.safeParse(url).success).toBe(true);
  });
  it.each([
    '10.42.0.17:8080',
    'ftp://10.0.0.1/',
    'http://user:pw@10.0.0.1/',
    'http://10.0.0.1/#frag',
    '/relative',
    '',
  ])('rejects %j with one issue', (url) => {
    const result = InstanceUrlSchema.safeParse(url);
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
  });
});

describe('ReasonSchema and VersionSchema', () => {
  it('accept printable text, including non-ASCII', () => {
    expect(ReasonSchema.safeParse('scaled down: 3 → 2 replicas').success).toBe(true);
    expect(VersionSchema.safeParse('1.4.2+build.7').success).toBe(true);
  });
  it('reject empty, too long and control characters', () => {
    expect(ReasonSchema.safeParse('').success).toBe(false);
    expect(ReasonSchema.safeParse('x'.repeat(257)).success).toBe(false);
    expect(ReasonSchema.safeParse('line\nbreak').success).toBe(false);
    expect(VersionSchema.safeParse('v'.repeat(129)).success).toBe(false);
  });
});
