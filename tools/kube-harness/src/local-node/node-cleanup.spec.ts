import { describe, expect, it } from '@jest/globals';
import { mountsUnder } from './node-cleanup';

const MOUNTINFO = [
  '22 1 0:21 / / rw - overlay overlay rw',
  '90 22 0:50 / /tmp/sbxnode-a/state/run/rootfs rw - overlay overlay rw',
  '91 90 0:51 / /tmp/sbxnode-a/state/run/rootfs/dev rw - tmpfs tmpfs rw',
  '92 22 0:4 net:[4026532] /tmp/sbxnode-a/state/netns/cni-1 rw - nsfs nsfs rw',
  '93 22 0:52 / /tmp/sbxnode-ab/other rw - tmpfs tmpfs rw',
  '',
].join('\n');

describe('mountsUnder', () => {
  it('lists only mounts inside the directory, deepest first', () => {
    expect(mountsUnder(MOUNTINFO, '/tmp/sbxnode-a')).toEqual([
      '/tmp/sbxnode-a/state/run/rootfs/dev',
      '/tmp/sbxnode-a/state/netns/cni-1',
      '/tmp/sbxnode-a/state/run/rootfs',
    ]);
  });
});
