import { describe, expect, it } from '@jest/globals';
import { hasSysResource, patchShimManager, shimVariant } from './cluster-programs';
import { deepestFirst, isClusterProcess, ourIpsets, planTable, splitRule } from './host-state';

describe('host state of the local cluster', () => {
  it('plans the removal of KUBE-* chains and the built-in rules that jump to them', () => {
    const listing = [
      '-P INPUT ACCEPT',
      '-N KUBE-FIREWALL',
      '-N KUBE-ROUTER-INPUT',
      '-N SANDBOX-LOCAL',
      '-A INPUT -m comment --comment "kube-router netpol - 4IA2OSFRMVNDXBVV" -j KUBE-ROUTER-INPUT',
      '-A INPUT -j KUBE-FIREWALL',
      '-A INPUT -j SANDBOX-LOCAL',
      '-A KUBE-FIREWALL -d 127.0.0.0/8 -j DROP',
    ].join('\n');
    expect(planTable(listing)).toEqual({
      chains: ['KUBE-FIREWALL', 'KUBE-ROUTER-INPUT'],
      deleteRules: [
        [
          '-D',
          'INPUT',
          '-m',
          'comment',
          '--comment',
          'kube-router netpol - 4IA2OSFRMVNDXBVV',
          '-j',
          'KUBE-ROUTER-INPUT',
        ],
        ['-D', 'INPUT', '-j', 'KUBE-FIREWALL'],
      ],
    });
  });

  it('splits quoted comments as one argument', () => {
    expect(splitRule('-A X -m comment --comment "a \\"b\\" c" -j Y')).toEqual([
      '-A',
      'X',
      '-m',
      'comment',
      '--comment',
      'a "b" c',
      '-j',
      'Y',
    ]);
  });

  it("picks kube-router's ipsets only", () => {
    expect(ourIpsets('KUBE-DST-ABC\nsandbox-x\ninet6:KUBE-SRC-1\nkube-router-pod-subnets\n')).toEqual([
      'KUBE-DST-ABC',
      'inet6:KUBE-SRC-1',
      'kube-router-pod-subnets',
    ]);
  });

  it('recognises cluster processes by the node directory, never a shell reading it', () => {
    expect(
      isClusterProcess(
        'kubelet\n',
        'kubelet\0--config\0/tmp/sandbox-cluster/kubelet-config.json',
        '/tmp/sandbox-cluster',
      ),
    ).toBe(true);
    expect(isClusterProcess('bash\n', 'bash\0-c\0ls /tmp/sandbox-cluster/logs', '/tmp/sandbox-cluster')).toBe(
      false,
    );
    expect(
      isClusterProcess('etcd\n', 'etcd\0--data-dir\0/tmp/sandbox-cluster-other', '/tmp/sandbox-cluster'),
    ).toBe(false);
  });

  it('removes cgroups children first', () => {
    expect(deepestFirst(['/c/kubepods', '/c/kubepods/besteffort/pod1', '/c/kubepods/besteffort'])).toEqual([
      '/c/kubepods/besteffort/pod1',
      '/c/kubepods/besteffort',
      '/c/kubepods',
    ]);
  });

  it('builds the OOM-score shim variant only where CAP_SYS_RESOURCE is withheld', () => {
    expect(hasSysResource('CapBnd:\t000001fffeffffff\n')).toBe(false);
    expect(hasSysResource('CapBnd:\t000001ffffffffff\n')).toBe(true);
    expect(shimVariant('CapBnd:\t000001fffeffffff\n')).toBe('oom-score-0');
    expect(shimVariant('CapBnd:\t000001ffffffffff\n')).toBe('upstream');
    expect(patchShimManager('const (\n\toomScoreMax = -999\n)')).toBe('const (\n\toomScoreMax = 0\n)');
    expect(() => patchShimManager('oomScoreMax = -1000')).toThrow(/not found/);
  });
});
