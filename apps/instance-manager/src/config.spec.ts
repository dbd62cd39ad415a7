import { describe, expect, it } from '@jest/globals';
import { InstanceManagerConfigSchema } from './config';

const tokens = { ADMIN_TOKEN_FILE: '/run/secrets/admin-token', READ_TOKEN_FILE: '/run/secrets/read-token' };

describe('InstanceManagerConfigSchema', () => {
  it('has working defaults for npm start (local driver, port 7101, Redis on 6390)', () => {
    const config = InstanceManagerConfigSchema.parse(tokens);
    expect(config).toMatchObject({
      PORT: 7101,
      HOST: '127.0.0.1',
      REDIS_URL: 'redis://127.0.0.1:6390',
      DRIVER: 'local',
      LOCAL_PREFIX: 'sbx',
      LOCAL_RUNTIME: 'auto',
      KUBE_RUNTIME_CLASS: 'gvisor',
      KUBE_ORCHESTRATOR_POD_LABELS: { 'app.kubernetes.io/name': 'livepeer-node' },
      LOCAL_DNS_SERVERS: [],
    });
    expect(config.LOCAL_PROTECTED_PORTS).toEqual(expect.arrayContaining([6390, 7101, 7102, 8935]));
  });

  it('parses lists and label maps, and reports every bad variable', () => {
    const config = InstanceManagerConfigSchema.parse({
      ...tokens,
      LOCAL_PROTECTED_PORTS: '1, 2,3',
      KUBE_ORCHESTRATOR_POD_LABELS: 'a=b,c=d',
      KUBE_CLUSTER_CIDRS: '10.0.0.0/8',
    });
    expect(config.LOCAL_PROTECTED_PORTS).toEqual([1, 2, 3]);
    expect(config.KUBE_ORCHESTRATOR_POD_LABELS).toEqual({ a: 'b', c: 'd' });
    const result = InstanceManagerConfigSchema.safeParse({
      ...tokens,
      DRIVER: 'docker',
      LOCAL_PREFIX: 'TOO-LONG',
      LOCAL_PROTECTED_PORTS: '1,x',
      KUBE_ORCHESTRATOR_POD_LABELS: 'novalue',
      READY_PROBE_INTERVAL_MS: '50',
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => String(issue.path[0])).sort();
    expect(paths).toEqual([
      'DRIVER',
      'KUBE_ORCHESTRATOR_POD_LABELS',
      'LOCAL_PREFIX',
      'LOCAL_PROTECTED_PORTS',
      'READY_PROBE_INTERVAL_MS',
    ]);
  });
});
