import { describe, expect, it } from '@jest/globals';
import { hostLeftovers } from './host-leftovers';
import { parseSoakArgs } from './soak-args';

describe('parseSoakArgs', () => {
  it('reads minutes, seed and report file', () => {
    expect(parseSoakArgs(['--minutes', '2.5', '--seed', '42', '--report', 'r.json'])).toEqual({
      minutes: 2.5,
      seed: 42,
      report: 'r.json',
    });
  });

  it('draws a seed when none is given', () => {
    expect(parseSoakArgs(['--minutes', '1'], () => 7)).toEqual({ minutes: 1, seed: 7 });
  });

  it('refuses missing, bad and unknown arguments', () => {
    expect(() => parseSoakArgs([])).toThrow('--minutes is required');
    expect(() => parseSoakArgs(['--minutes', '0'])).toThrow('positive');
    expect(() => parseSoakArgs(['--minutes', 'ten'])).toThrow('positive');
    expect(() => parseSoakArgs(['--minutes'])).toThrow('needs a value');
    expect(() => parseSoakArgs(['--minutes', '1', '--seed', 'x'])).toThrow('--seed');
    expect(() => parseSoakArgs(['--hours', '1'])).toThrow('unknown argument --hours');
  });
});

describe('hostLeftovers', () => {
  it('is empty for a clean host, with other prefixes and unrelated objects around', () => {
    expect(
      hostLeftovers(
        {
          netns: 'sbx-abcdefghij (id: 3)\ncni-1234\n',
          iptables: ':SBX-abcdefghij-E - [0:0]\n:FORWARD ACCEPT [0:0]\n',
          containers: 'sbx-abcdefghij\nredis\n',
          livePids: [],
        },
        'sok',
      ),
    ).toEqual([]);
  });

  it('names every namespace, chain, container and process of the run', () => {
    expect(
      hostLeftovers(
        {
          netns: 'sok-abcdefghij (id: 3)\nsok-0123456789\n',
          iptables:
            '*filter\n:SOK-abcdefghij-E - [0:0]\n:SOK-abcdefghij-I - [0:0]\n*nat\n:SOK-abcdefghij-E - [0:0]\n-A FORWARD -j SOK-abcdefghij-I\n',
          containers: 'sok-abcdefghij\n',
          livePids: [123],
        },
        'sok',
      ),
    ).toEqual([
      'netns sok-abcdefghij',
      'netns sok-0123456789',
      'iptables chain SOK-abcdefghij-E',
      'iptables chain SOK-abcdefghij-I',
      'container sok-abcdefghij',
      'process 123',
    ]);
  });
});
