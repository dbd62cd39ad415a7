import { describe, expect, it } from '@jest/globals';
import { InstanceSpecSchema } from './instance-spec.schema';
import { instanceNames } from './naming';
import type { RunArgsInput } from './podman-args';
import { buildRunArgs } from './podman-args';

function input(overrides: Partial<Parameters<typeof InstanceSpecSchema.parse>[0]> = {}): RunArgsInput {
  const spec = InstanceSpecSchema.parse({
    image: 'localhost/sandbox-example-app:abc',
    port: 8080,
    resources: { cpus: 0.5, memoryMb: 256 },
    env: { GREETING: 'hello world' },
    labels: { app: 'demo' },
    ...overrides,
  });
  return {
    prefix: 'sbx',
    names: instanceNames('sbx', 'abcdefghij'),
    spec,
    instanceAddress: '10.213.0.2',
    netnsPath: '/run/netns/sbx-abcdefghij',
    runtime: '/usr/bin/runsc',
    runtimeFlags: ['platform=ptrace'],
    user: '65534:65534',
    pidsLimit: 1024,
    dnsServers: ['9.9.9.9'],
    logMaxSize: '10mb',
  };
}

describe('buildRunArgs', () => {
  it('runs under runsc in the prepared namespace with a read-only root, limits and no privileges', () => {
    const args = buildRunArgs(input());
    expect(args).toEqual(
      expect.arrayContaining([
        '--runtime=/usr/bin/runsc',
        '--runtime-flag=network=host',
        '--runtime-flag=platform=ptrace',
        '--network=ns:/run/netns/sbx-abcdefghij',
        '--read-only',
        '--cpus=0.5',
        '--memory=256m',
        '--memory-swap=256m',
        '--cap-drop=all',
        '--security-opt=no-new-privileges',
        '--user=65534:65534',
        '--ipc=none',
        '--no-hosts',
        '--dns=none',
        '--pull=never',
        '--name=sbx-abcdefghij',
      ]),
    );
  });

  it('mounts nothing and passes only the spec environment', () => {
    const args = buildRunArgs(input());
    expect(args.some((arg) => /^(-v|--volume|--mount|--env-host|--env-file|--secret)/.test(arg))).toBe(false);
    const envValues = args.flatMap((arg, index) => (args[index - 1] === '--env' ? [arg] : []));
    expect(envValues).toEqual(['GREETING=hello world']);
    // Podman copies http_proxy and friends from its own environment unless told not to.
    expect(args).toContain('--http-proxy=false');
  });

  it('labels the container for discovery and ends with the image and its arguments', () => {
    const args = buildRunArgs(input({ args: ['--flag', 'x'] }));
    expect(args).toEqual(
      expect.arrayContaining([
        'sandbox.instance=abcdefghij',
        'sandbox.address=10.213.0.2',
        'sandbox.meta.app=demo',
      ]),
    );
    expect(args.slice(-3)).toEqual(['localhost/sandbox-example-app:abc', '--flag', 'x']);
  });

  it('configures resolvers only for egress internet', () => {
    expect(buildRunArgs(input({ egress: 'internet' }))).toContain('--dns=9.9.9.9');
    expect(buildRunArgs(input({ egress: 'internet' }))).not.toContain('--dns=none');
  });
});
