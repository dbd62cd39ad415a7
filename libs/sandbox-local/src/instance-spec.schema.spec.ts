import { describe, expect, it } from '@jest/globals';
import { HealthCheckSchema, InstanceSpecSchema } from './instance-spec.schema';

const valid = { image: 'localhost/app:1', port: 8080, resources: { cpus: 1, memoryMb: 256 } };

describe('InstanceSpecSchema', () => {
  it('applies defaults', () => {
    expect(InstanceSpecSchema.parse(valid)).toEqual({ ...valid, env: {}, egress: 'none', labels: {} });
    expect(HealthCheckSchema.parse({ type: 'http', path: '/healthz' })).toEqual({
      type: 'http',
      path: '/healthz',
      expectedStatus: 200,
    });
  });

  it.each(['oci-archive:app.tar', 'oci-archive:/srv/app.tar', 'dir:rootfs', 'docker-archive:x.tar'])(
    'refuses the podman transport %s, which would run an image from a host file',
    (image) => {
      const result = InstanceSpecSchema.safeParse({ ...valid, image });
      expect(new Set(result.error?.issues.map((issue) => issue.path.join('.')))).toEqual(new Set(['image']));
    },
  );

  it('reports every bad field by path', () => {
    const result = InstanceSpecSchema.safeParse({
      image: '--privileged',
      port: 0,
      resources: { cpus: 0, memoryMb: 1 },
      env: { 'BAD-NAME': 'x' },
      egress: 'everywhere',
      instanceId: 'NOPE',
      extra: true,
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => issue.path.join('.')) ?? [];
    expect(paths).toEqual(
      expect.arrayContaining([
        'image',
        'port',
        'resources.cpus',
        'resources.memoryMb',
        'env.BAD-NAME',
        'egress',
        'instanceId',
        '',
      ]),
    );
  });
});
