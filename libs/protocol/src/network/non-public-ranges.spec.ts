import { describe, expect, it } from '@jest/globals';
import { NON_PUBLIC_IPV4_RANGES, NON_PUBLIC_IPV6_RANGES } from './non-public-ranges';

const toNumber = (address: string) =>
  address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);

/** True when an IPv4 range of the list holds the address. */
function refusedV4(address: string): boolean {
  return NON_PUBLIC_IPV4_RANGES.some((range) => {
    const [base = '', bits = '32'] = range.split('/');
    const size = 2 ** (32 - Number(bits));
    return Math.floor(toNumber(address) / size) === Math.floor(toNumber(base) / size);
  });
}

describe('non-public ranges', () => {
  it.each(['169.254.169.254', '169.254.170.2', '168.63.129.16', '10.1.2.3', '127.0.0.1', '100.100.100.200'])(
    'refuse the cloud metadata, wire-server and private address %s',
    (address) => expect(refusedV4(address)).toBe(true),
  );

  it.each(['1.1.1.1', '168.63.129.17', '8.8.8.8'])('leave the public address %s reachable', (address) =>
    expect(refusedV4(address)).toBe(false),
  );

  it('name the IPv6 instance metadata range and the link-local and ULA blocks', () => {
    expect(NON_PUBLIC_IPV6_RANGES).toEqual(
      expect.arrayContaining(['fd00:ec2::/32', 'fe80::/10', 'fc00::/7']),
    );
  });
});
