import { describe, expect, it } from '@jest/globals';
import { cniConfList, containerdConfig, GVISOR_HANDLER, type NodeLayout } from './node-config';

const LAYOUT: NodeLayout = {
  dir: '/tmp/sbxnode-abc',
  socket: '/tmp/sbxnode-abc/containerd.sock',
  bridge: 'sbxn-abc',
  podSubnet: '10.230.7.0/24',
  runscPath: '/cache/runsc',
  pauseImage: 'localhost/sandbox-node/pause:k1',
};

describe('containerdConfig', () => {
  const config = containerdConfig(LAYOUT);

  it('keeps every path under the node directory and opens no TCP listener', () => {
    expect(config).toContain('root = "/tmp/sbxnode-abc/root"');
    expect(config).toContain('state = "/tmp/sbxnode-abc/state"');
    expect(config).toContain('address = "/tmp/sbxnode-abc/containerd.sock"');
    expect(config).toContain('netns_mounts_under_state_dir = true');
    expect(config).toContain('restrict_oom_score_adj = true');
    expect(config).toMatch(/\[metrics\]\n {2}address = ""/);
    expect(config).toContain('stream_server_address = "127.0.0.1"');
  });

  it('makes gVisor the only and default runtime: runsc as the runc shim binary, its state under the node', () => {
    expect(config).toContain(`default_runtime_name = "${GVISOR_HANDLER}"`);
    expect(config).toContain(
      `containerd.runtimes.${GVISOR_HANDLER}]\n  runtime_type = "io.containerd.runc.v2"`,
    );
    expect(config).toContain('BinaryName = "/cache/runsc"');
    expect(config).toContain('Root = "/tmp/sbxnode-abc/runsc"');
    expect(config.match(/runtime_type/g)).toHaveLength(1);
    expect(config).toContain('sandbox_image = "localhost/sandbox-node/pause:k1"');
  });
});

describe('cniConfList', () => {
  it('puts pods on the node bridge with addresses from its subnet and no masquerade', () => {
    const list = JSON.parse(cniConfList(LAYOUT)) as { plugins: Record<string, unknown>[] };
    expect(list.plugins).toEqual([
      expect.objectContaining({
        type: 'bridge',
        bridge: 'sbxn-abc',
        ipMasq: false,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: '10.230.7.0/24' }]],
          dataDir: '/tmp/sbxnode-abc/cni/ipam',
        },
      }),
    ]);
  });
});
