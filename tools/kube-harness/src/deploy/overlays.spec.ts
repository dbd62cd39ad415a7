import { beforeAll, expect, it } from '@jest/globals';
import type { KubernetesObject, V1Container } from '@kubernetes/client-node';
import { loadAllYaml } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureKubeBinaries } from '../build/ensure-kube-binaries';
import { DEPLOY_DIR, renderKustomization } from '../manifests/manifests';
import {
  containerEnv,
  mountedSecrets,
  OVERLAYS,
  overlayDir,
  secretKeyAt,
  workloads,
  type Overlay,
} from '../manifests/workloads';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';

const rendered = {} as Record<Overlay, KubernetesObject[]>;

/** API groups a stock k3s serves without any CRD (`v1` objects have none). */
const BUILT_IN_GROUPS = [
  'apps',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'node.k8s.io',
  'admissionregistration.k8s.io',
  'policy',
  'batch',
];

/** Who mounts which Secret: Node's bootstrap credential only the adapter (and Node, its owner). */
const SECRETS: Record<string, string[]> = {
  'instance-manager': ['instance-manager-api-tokens', 'redis-auth'],
  adapter: ['adapter-api-tokens', 'adapter-bootstrap', 'redis-auth'],
  'redemption-handoff': [
    'handoff-intake',
    'redeemer-credential',
    'redemption-handoff-api-tokens',
    'redis-auth',
  ],
  dashboard: ['dashboard-api-tokens', 'redis-auth'],
  'drain-controller': ['drain-controller-api-tokens', 'redis-auth'],
  'livepeer-node': ['adapter-bootstrap', 'handoff-intake'],
  redis: ['redis-auth'],
  'redeemer-sim': ['redeemer-credential'],
};

function find(overlay: Overlay, kind: string, name: string): KubernetesObject {
  const found = rendered[overlay].find((object) => object.kind === kind && object.metadata?.name === name);
  if (!found) throw new Error(`${overlay} renders no ${kind} ${name}`);
  return found;
}

function hardened(container: V1Container): boolean {
  const context = container.securityContext ?? {};
  return (
    context.readOnlyRootFilesystem === true &&
    context.allowPrivilegeEscalation === false &&
    JSON.stringify(context.capabilities?.drop) === '["ALL"]' &&
    !context.capabilities?.add &&
    context.privileged !== true
  );
}

describeWithKube('deploy/ overlays, as kustomize renders them', () => {
  beforeAll(async () => {
    const { kustomize } = await ensureKubeBinaries();
    for (const overlay of OVERLAYS)
      rendered[overlay] = await renderKustomization(kustomize, overlayDir(overlay));
  }, HARNESS_START_TIMEOUT_MS);

  it.each(OVERLAYS)('%s: mounts each Secret only where the split says, and no wallet key', (overlay) => {
    const mounts = Object.fromEntries(
      workloads(rendered[overlay]).map((w) => [w.name, mountedSecrets(w.template)]),
    );
    const expected = Object.fromEntries(Object.entries(SECRETS).filter(([name]) => name in mounts));
    expect(mounts).toEqual(expected);
    expect(rendered[overlay].filter((object) => object.kind === 'Secret')).toEqual([]);
  });

  it.each(OVERLAYS)(
    "%s: has the drain-controller read the adapter's sessions view, not its API",
    (overlay) => {
      const all = workloads(rendered[overlay]);
      const named = (name: string) => {
        const found = all.find((w) => w.name === name);
        if (!found) throw new Error(`${overlay} renders no ${name}`);
        return found;
      };
      const controller = named('drain-controller');
      const adapter = named('adapter');
      // The view is a key under the adapter's STATE_PREFIX (default `adapter`) in the same Redis.
      expect(containerEnv(controller, 'ADAPTER_STATE_PREFIX')).toBe(
        containerEnv(adapter, 'STATE_PREFIX') ?? 'adapter',
      );
      expect(containerEnv(controller, 'REDIS_URL')).toBe(containerEnv(adapter, 'REDIS_URL'));
      expect(containerEnv(controller, 'ADAPTER_URL')).toBeUndefined();
      expect(containerEnv(controller, 'ADAPTER_TOKEN_FILE')).toBeUndefined();
      // Its own tokens (those of its API) are its own Secret.
      expect(secretKeyAt(controller, containerEnv(controller, 'READ_TOKEN_FILE') ?? '')?.secret).toBe(
        'drain-controller-api-tokens',
      );
    },
  );

  it.each(OVERLAYS)(
    '%s: runs every container non-root, read-only, without privilege or capabilities',
    (overlay) => {
      for (const { name, template } of workloads(rendered[overlay])) {
        const pod = template.spec;
        expect({ name, runAsNonRoot: pod?.securityContext?.runAsNonRoot }).toEqual({
          name,
          runAsNonRoot: true,
        });
        expect(pod?.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
        for (const container of pod?.containers ?? []) {
          expect({ name, hardened: hardened(container) }).toEqual({ name, hardened: true });
          expect(container.resources?.limits).toEqual(
            expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }),
          );
          expect(container.resources?.requests).toBeDefined();
          expect(container.livenessProbe).toBeDefined();
          expect(container.readinessProbe).toBeDefined();
        }
      }
    },
  );

  it.each(OVERLAYS)('%s: gives each service more grace than its own shutdown timeout', (overlay) => {
    for (const workload of workloads(rendered[overlay])) {
      const timeout = containerEnv(workload, 'SHUTDOWN_TIMEOUT_MS');
      if (timeout === undefined) continue;
      const grace = workload.template.spec?.terminationGracePeriodSeconds ?? 30;
      expect({ name: workload.name, margin: grace * 1_000 - Number(timeout) >= 5_000 }).toEqual({
        name: workload.name,
        margin: true,
      });
      const probes = workload.template.spec?.containers[0];
      expect(probes?.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(probes?.readinessProbe?.httpGet?.path).toBe('/readyz');
    }
  });

  it.each(OVERLAYS)('%s: runs services with their service account and the kubernetes driver', (overlay) => {
    const accounts = new Set(
      rendered[overlay].filter((o) => o.kind === 'ServiceAccount').map((o) => o.metadata?.name),
    );
    for (const { name, template } of workloads(rendered[overlay])) {
      const account = template.spec?.serviceAccountName;
      if (account !== undefined) expect(accounts.has(account)).toBe(true);
      else
        expect({ name, automount: template.spec?.automountServiceAccountToken }).toEqual({
          name,
          automount: false,
        });
    }
    const manager = workloads(rendered[overlay]).find((w) => w.name === 'instance-manager');
    expect(manager && containerEnv(manager, 'DRIVER')).toBe('kubernetes');
    expect(find(overlay, 'Deployment', 'livepeer-node').metadata?.namespace).toBe('sandbox-system');
  });

  it.each(OVERLAYS)('%s: runs Redis durable (AOF fsync always, noeviction) behind a password', (overlay) => {
    const config = (find(overlay, 'ConfigMap', 'redis-config') as { data: Record<string, string> }).data[
      'redis.conf'
    ];
    expect(config).toMatch(/^appendonly yes$/m);
    expect(config).toMatch(/^appendfsync always$/m);
    expect(config).toMatch(/^maxmemory-policy noeviction$/m);
    expect(config).toMatch(/^include \/run\/secrets\/redis\/auth\.conf$/m);
    const redis = find(overlay, 'StatefulSet', 'redis') as { spec: { volumeClaimTemplates?: unknown[] } };
    expect(redis.spec.volumeClaimTemplates).toHaveLength(1);
  });

  it.each(OVERLAYS)('%s: denies by default in both namespaces', (overlay) => {
    const policies = rendered[overlay].filter((o) => o.kind === 'NetworkPolicy');
    for (const namespace of ['sandbox-system', 'sandbox-apps']) {
      const deny = policies.find(
        (p) => p.metadata?.name === 'default-deny' && p.metadata.namespace === namespace,
      );
      expect((deny as { spec?: unknown } | undefined)?.spec).toEqual({
        podSelector: {},
        policyTypes: ['Ingress', 'Egress'],
      });
    }
  });

  it('ships the alert rules as a rules file, and the same as a PrometheusRule in monitoring/', () => {
    const file = (find('production', 'ConfigMap', 'sandbox-alert-rules') as { data: Record<string, string> })
      .data['sandbox-alerts.rules.yaml'];
    const [parsed] = loadAllYaml(file ?? '') as { groups: unknown[] }[];
    const [rule] = loadAllYaml(
      readFileSync(join(DEPLOY_DIR, 'monitoring', 'prometheus-rule.yaml'), 'utf8'),
    ) as { spec: { groups: unknown[] } }[];
    expect(rule?.spec.groups).toEqual(parsed?.groups);
    expect(JSON.stringify(parsed)).toContain('handoff_validity_window_used_max_ratio');
  });

  it.each(OVERLAYS)('%s: needs no custom resource definition (stock k3s serves every kind)', (overlay) => {
    const groups = rendered[overlay].map((object) => object.apiVersion?.split('/').slice(0, -1).join('/'));
    const foreign = groups.filter((group) => group && !BUILT_IN_GROUPS.includes(group));
    expect(foreign).toEqual([]);
  });

  it.each(OVERLAYS)('%s: caps Redis memory below its limit, losing nothing past it', (overlay) => {
    const config = (find(overlay, 'ConfigMap', 'redis-config') as { data: Record<string, string> }).data[
      'redis.conf'
    ];
    const maxmemory = /^maxmemory (\d+)mb$/m.exec(config ?? '')?.[1];
    const redis = workloads(rendered[overlay]).find((w) => w.name === 'redis');
    const limit = String(redis?.template.spec?.containers[0]?.resources?.limits?.['memory']);
    expect(limit).toMatch(/^\d+(Mi|Gi)$/);
    const limitMb = Number.parseInt(limit, 10) * (limit.endsWith('Gi') ? 1024 : 1);
    expect(Number(maxmemory)).toBeGreaterThan(0);
    // An AOF rewrite forks: copy-on-write may double the memory in use.
    expect(Number(maxmemory)).toBeLessThanOrEqual(limitMb / 2);
    expect(config).toMatch(/^maxmemory-policy noeviction$/m);
  });

  it('k3d: egress: internet apps get a public resolver (the cluster DNS is out of their reach)', () => {
    const manager = workloads(rendered.k3d).find((w) => w.name === 'instance-manager');
    if (!manager) throw new Error('k3d renders no instance-manager');
    const resolvers = (containerEnv(manager, 'KUBE_DNS_SERVERS') ?? '').split(',');
    expect(resolvers.length).toBeGreaterThan(0);
    for (const resolver of resolvers) {
      expect(resolver).toMatch(/^\d{1,3}(\.\d{1,3}){3}$/);
      expect(resolver).not.toMatch(/^(10|127|169\.254|192\.168|172\.(1[6-9]|2\d|3[01]))\./);
    }
  });

  it('production: takes every setting from parameters.env, and none points at Node by mistake', () => {
    const parameters = Object.fromEntries(
      readFileSync(join(overlayDir('production'), 'parameters.env'), 'utf8')
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const all = workloads(rendered['production']);
    const named = (name: string) => {
      const found = all.find((w) => w.name === name);
      if (!found) throw new Error(`production renders no ${name}`);
      return found;
    };
    const node = named('livepeer-node').template.spec?.containers[0];
    expect(node?.image).toBe(parameters['NODE_IMAGE']);
    expect(node?.args).toContain(`--runner-grants=${parameters['NODE_RUNNER_GRANTS']}`);
    expect(containerEnv(named('redemption-handoff'), 'REDEEMER_URL')).toBe(parameters['REDEEMER_URL']);
    const manager = named('instance-manager');
    expect(containerEnv(manager, 'KUBE_CLUSTER_CIDRS')).toBe(parameters['KUBE_CLUSTER_CIDRS']);
    expect(containerEnv(manager, 'KUBE_DNS_SERVERS')).toBe(parameters['KUBE_DNS_SERVERS']);
    for (const name of ['redemption-handoff-to-redeemer', 'livepeer-node-to-chain'])
      find('production', 'NetworkPolicy', name);
  });
});
