import { describe, expect, it } from '@jest/globals';
import {
  AddressSchema,
  TicketHashSchema,
  Uint256DecimalSchema,
  hexBytesSchema,
  uintDecimalSchema,
} from './chain.schema';

const MAX_UINT256 = ((1n << 256n) - 1n).toString();

describe('hexBytesSchema', () => {
  it('accepts exactly n lowercase bytes', () => {
    expect(AddressSchema.safeParse('0x2c7536e3605d9c16a7a3d7b1898e529396a65c23').success).toBe(true);
    expect(TicketHashSchema.safeParse(`0x${'ab'.repeat(32)}`).success).toBe(true);
    expect(hexBytesSchema(65).safeParse(`0x${'0'.repeat(130)}`).success).toBe(true);
  });
  it.each([
    '2c7536e3605d9c16a7a3d7b1898e529396a65c23',
    '0x2C7536E3605D9C16A7A3D7B1898E529396A65C23',
    '0x2c7536e3605d9c16a7a3d7b1898e529396a65c2',
    '0x2c7536e3605d9c16a7a3d7b1898e529396a65c233',
    '0x2c7536e3605d9c16a7a3d7b1898e529396a65cZZ',
  ])('rejects %s as an address', (value) => {
    expect(AddressSchema.safeParse(value).success).toBe(false);
  });
  it('returns a distinct schema each call', () => {
    expect(hexBytesSchema(32)).not.toBe(hexBytesSchema(32));
  });
});

describe('uintDecimalSchema', () => {
  it('accepts canonical values up to the width', () => {
    for (const value of ['0', '1', '1000000000000000', MAX_UINT256]) {
      expect(Uint256DecimalSchema.safeParse(value).success).toBe(true);
    }
    expect(uintDecimalSchema(32).safeParse('4294967295').success).toBe(true);
  });
  it('rejects values past the width with one issue', () => {
    const over = ((1n << 256n) + 5n).toString();
    const result = Uint256DecimalSchema.safeParse(over);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['must fit in 256 bits']);
    expect(uintDecimalSchema(32).safeParse('4294967296').success).toBe(false);
  });
  it.each(['', '-1', '01', '1.0', '1e3', ' 1', '0x10', `1${'0'.repeat(78)}`])(
    'rejects %j with one issue',
    (value) => {
      const result = Uint256DecimalSchema.safeParse(value);
      expect(result.success).toBe(false);
      expect(result.error?.issues).toHaveLength(1);
    },
  );
  it('rejects numbers (they lose precision in JSON)', () => {
    expect(Uint256DecimalSchema.safeParse(1000).success).toBe(false);
  });
});
