import { describe, expect, it } from '@jest/globals';
import {
  containsNetwork,
  formatCidr,
  formatIpv4,
  ipv4RangeMatcher,
  isIpv4,
  networkOf,
  parseCidr,
  parseIpv4,
} from './ipv4';

describe('ipv4', () => {
  it('parses and formats dotted addresses', () => {
    expect(parseIpv4('10.213.0.6')).toBe(0x0ad50006);
    expect(formatIpv4(0xffffffff)).toBe('255.255.255.255');
    expect(isIpv4('1.2.3.4')).toBe(true);
    expect(isIpv4('1.2.3.256')).toBe(false);
    expect(isIpv4('1e1.0.0.0')).toBe(false);
    expect(() => parseIpv4('::1')).toThrow(RangeError);
  });

  it('clears host bits for the network of an address and nests networks', () => {
    const net = networkOf('203.0.113.77', 24);
    expect(formatCidr(net)).toBe('203.0.113.0/24');
    expect(containsNetwork(parseCidr('203.0.0.0/16'), net)).toBe(true);
    expect(containsNetwork(net, parseCidr('203.0.0.0/16'))).toBe(false);
    expect(() => parseCidr('10.0.0.0/x')).toThrow('CIDR');
  });

  it('matches an address against a list of ranges', () => {
    const denied = ipv4RangeMatcher(['10.0.0.0/8', '169.254.0.0/16']);
    expect(denied('10.1.2.3')).toBe(true);
    expect(denied('169.254.169.254')).toBe(true);
    expect(denied('8.8.8.8')).toBe(false);
  });
});
