import { describe, expect, it } from '@jest/globals';
import { instanceAddresses, runnerGrants } from './runner-grants';

describe('runner grants', () => {
  it('lists the instance end of every /30 of a local subnet', () => {
    expect(instanceAddresses('10.213.0.0/28', true)).toEqual([
      '10.213.0.2',
      '10.213.0.6',
      '10.213.0.10',
      '10.213.0.14',
    ]);
    expect(instanceAddresses('10.213.0.0/22', true)).toHaveLength(256);
  });

  it('lists host addresses of a pod CIDR, capped at Node’s runner limit', () => {
    expect(instanceAddresses('10.42.0.0/30', false)).toEqual(['10.42.0.1', '10.42.0.2']);
    expect(instanceAddresses('10.42.0.0/24', false)).toHaveLength(254);
    expect(instanceAddresses('10.42.0.0/16', false)).toHaveLength(256);
  });

  it('grants every address on every app port, once', () => {
    expect(runnerGrants('10.213.0.0/29', [8080, 3000, 8080], true)).toEqual([
      '10.213.0.2:3000',
      '10.213.0.6:3000',
      '10.213.0.2:8080',
      '10.213.0.6:8080',
    ]);
    expect(() => runnerGrants('10.0.0.0/8', [80], true)).toThrow('prefix');
    expect(() => runnerGrants('10.0.0.300/24', [80], true)).toThrow('IPv4');
  });
});
