import { describe, expect, it } from '@jest/globals';
import { formatIpv4, parseCidr, parseIpv4 } from '@sandbox/protocol';
import { nextFreeSlot, slotAddressing, slotCount, slotOf } from './subnet';

describe('subnet', () => {
  it('parses and formats IPv4 addresses', () => {
    expect(parseIpv4('10.213.1.2')).toBe(10 * 2 ** 24 + 213 * 2 ** 16 + 1 * 256 + 2);
    expect(formatIpv4(parseIpv4('255.0.128.7'))).toBe('255.0.128.7');
    expect(() => parseIpv4('10.0.0.256')).toThrow();
    expect(() => parseIpv4('10.0.0')).toThrow();
  });

  it('rejects CIDRs with host bits or bad lengths', () => {
    expect(parseCidr('10.213.0.0/16')).toEqual({ network: parseIpv4('10.213.0.0'), prefixLength: 16 });
    expect(() => parseCidr('10.213.0.1/16')).toThrow('host bits');
    expect(() => parseCidr('10.213.0.0/33')).toThrow();
    expect(() => slotCount(parseCidr('10.213.0.0/31'))).toThrow();
  });

  it('cuts the subnet into /30 slots, host .1 and instance .2', () => {
    const subnet = parseCidr('10.213.0.0/24');
    expect(slotCount(subnet)).toBe(64);
    expect(slotAddressing(subnet, 0)).toEqual({
      slot: 0,
      hostAddress: '10.213.0.1',
      instanceAddress: '10.213.0.2',
      prefixLength: 30,
    });
    expect(slotAddressing(subnet, 63).instanceAddress).toBe('10.213.0.254');
    expect(() => slotAddressing(subnet, 64)).toThrow();
    expect(slotOf(subnet, '10.213.0.6')).toBe(1);
    expect(slotOf(subnet, '10.213.1.6')).toBeUndefined();
  });

  it('finds the next free slot after the cursor, wrapping, and reports exhaustion', () => {
    const subnet = parseCidr('10.213.0.0/28');
    expect(nextFreeSlot(subnet, new Set([1, 2]), 1)).toBe(3);
    expect(nextFreeSlot(subnet, new Set([3]), 3)).toBe(0);
    expect(nextFreeSlot(subnet, new Set([0, 1, 2, 3]), 0)).toBeUndefined();
  });
});
