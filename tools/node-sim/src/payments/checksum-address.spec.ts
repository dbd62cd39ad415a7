import { describe, expect, it } from '@jest/globals';
import { checksumAddress } from './checksum-address';

describe('checksumAddress', () => {
  it.each([
    // Examples from EIP-55, then the simulator's default payer.
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23',
  ])('spells %s as Go does, from any case', (expected) => {
    expect(checksumAddress(expected.toLowerCase())).toBe(expected);
    expect(checksumAddress(`0x${expected.slice(2).toUpperCase()}`)).toBe(expected);
  });
});
