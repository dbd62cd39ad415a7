import { describe, expect, it } from '@jest/globals';
import { assertPrefix, instanceNames, nameParsers } from './naming';

describe('naming', () => {
  it('keeps interface names within 15 bytes and chain names within 28', () => {
    const names = instanceNames('abcd', 'a1b2c3d4e5');
    expect(names.hostVeth).toBe('abcdha1b2c3d4e5');
    expect(names.hostVeth.length).toBeLessThanOrEqual(15);
    expect(names.instanceVeth.length).toBeLessThanOrEqual(15);
    expect(names.egressChain).toBe('ABCD-a1b2c3d4e5-E');
    expect(names.natChain.length).toBeLessThanOrEqual(28);
  });

  it('rejects bad prefixes and ids', () => {
    expect(() => assertPrefix('sbx')).not.toThrow();
    expect(() => assertPrefix('s')).toThrow();
    expect(() => assertPrefix('sbx1')).toThrow();
    expect(() => instanceNames('sbx', 'UPPERCASE1')).toThrow();
    expect(() => instanceNames('sbx', 'short')).toThrow();
  });

  it('parses ids back from names of its own prefix only', () => {
    const names = instanceNames('sbx', 'abcdefghij');
    const parse = nameParsers('sbx');
    expect(parse.fromNetns(names.netns)).toBe('abcdefghij');
    expect(parse.fromHostVeth(names.hostVeth)).toBe('abcdefghij');
    expect(parse.fromChain(names.ingressChain)).toBe('abcdefghij');
    expect(parse.fromNetns('sbxfix')).toBeUndefined();
    expect(parse.fromNetns('sby-abcdefghij')).toBeUndefined();
    expect(parse.fromHostVeth(names.instanceVeth)).toBeUndefined();
    expect(parse.fromChain('SBX-abcdefghij-X')).toBeUndefined();
  });
});
