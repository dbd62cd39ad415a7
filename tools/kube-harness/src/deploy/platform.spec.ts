import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubernetesObject, V1EnvVar, V1NetworkPolicy } from '@kubernetes/client-node';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureKubeBinaries } from '../build/ensure-kube-binaries';
import { DEPLOY_DIR, renderKustomization } from '../manifests/manifests';
import { mountedSecrets, OVERLAYS, overlayDir, workloads, type Overlay } from '../manifests/workloads';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';

const PLATFORM_DIR = join(DEPLOY_DIR, 'platform');
const CHECK = join(PLATFORM_DIR, 'check-parameters.sh');
const SHIPPED = join(PLATFORM_DIR, 'parameters.env');
const dir = mkdtempSync(join(tmpdir(), 'platform-parameters-'));

/** Parameters a platform could ship: every one set, well-formed. */
const VALID: Record<string, string> = {
  NODE_URL: 'https://node.machine-7.operator.io:8935',
  SIGNER_URL: 'https://signer.platform.acme.io',
  VERIFIER_ID: 'platform-verifier-eu-1',
  SCHEDULE_APPS: 'eval-responder',
};

let files = 0;
function check(parameters: Record<string, string>) {
  const file = join(dir, `parameters-${files++}.env`);
  writeFileSync(
    file,
    `${Object.entries(parameters)
      .map(([key, value]) => `${key}=${value}`)
      .join('\n')}\n`,
  );
  const result = spawnSync('sh', [CHECK, file], { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('deploy/platform/check-parameters.sh', () => {
  it('refuses the shipped parameters and accepts a complete, well-formed set', () => {
    const shipped = spawnSync('sh', [CHECK, SHIPPED], { encoding: 'utf8' });
    expect(shipped.status).toBe(1);
    for (const key of ['NODE_URL', 'SIGNER_URL', 'VERIFIER_ID']) expect(shipped.stderr).toContain(`${key}:`);
    expect(check(VALID)).toEqual({ status: 0, output: '' });
    expect(check({ ...VALID, NODE_URL: 'http://node.machine-7.operator.io' }).status).toBe(0);
  });

  it.each([
    ['NODE_URL', 'http://livepeer-node.sandbox-system.svc:8935'],
    ['NODE_URL', 'http://livepeer-node.sandbox-system.svc.cluster.local:8935'],
    ['NODE_URL', 'http://10.43.0.12:8935'],
    ['NODE_URL', 'https://node.example.com'],
    ['SIGNER_URL', 'http://signer.platform.acme.io'],
    ['VERIFIER_ID', 'has space'],
    ['SCHEDULE_APPS', 'Eval_Responder'],
  ])('refuses %s=%s', (key, value) => {
    const result = check({ ...VALID, [key]: value });
    expect(result.status).toBe(1);
    expect(result.output).toContain(`${key}:`);
  });
});

const rendered = {} as Record<Overlay | 'platform', KubernetesObject[]>;

describeWithKube('deploy/platform and the install, as kustomize renders them', () => {
  beforeAll(async () => {
    const { kustomize } = await ensureKubeBinaries();
    rendered.platform = await renderKustomization(kustomize, PLATFORM_DIR);
    for (const overlay of OVERLAYS)
      rendered[overlay] = await renderKustomization(kustomize, overlayDir(overlay));
  }, HARNESS_START_TIMEOUT_MS);

  it.each(OVERLAYS)(
    '%s: the install runs no verifier and holds neither its key nor its signer credential',
    (overlay) => {
      const names = rendered[overlay].map((object) => object.metadata?.name ?? '');
      expect(names.filter((name) => name.includes('verifier'))).toEqual([]);
      const mounted = workloads(rendered[overlay]).flatMap((workload) => mountedSecrets(workload.template));
      expect(mounted.filter((name) => name.startsWith('verifier'))).toEqual([]);
    },
  );

  it("runs the verifier and its own Redis in the platform's namespace, with the platform's Secrets", () => {
    const objects = rendered.platform;
    expect(
      objects
        .filter((object) => object.kind !== 'Namespace')
        .every((object) => object.metadata?.namespace === 'sandbox-verifier'),
    ).toBe(true);
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    const mounts = Object.fromEntries(
      workloads(objects).map((w) => [w.name, mountedSecrets(w.template).sort()]),
    );
    expect(mounts).toEqual({
      verifier: ['redis-auth', 'verifier-api-tokens', 'verifier-signer', 'verifier-signing-key'],
      redis: ['redis-auth'],
    });
  });

  it("reaches Node at the public URL from parameters.env, never the machine's cluster", () => {
    const objects = rendered.platform;
    const verifier = workloads(objects).find((w) => w.name === 'verifier');
    const env = verifier?.template.spec?.containers[0]?.env ?? [];
    const parameters = objects.find(
      (object) => object.kind === 'ConfigMap' && object.metadata?.name?.startsWith('verifier-parameters'),
    ) as (KubernetesObject & { data: Record<string, string> }) | undefined;
    const shipped = Object.fromEntries(
      readFileSync(SHIPPED, 'utf8')
        .split('\n')
        .filter((line) => /^[A-Z_]+=/u.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const fromParameters = (name: string) => {
      const ref = env.find((variable: V1EnvVar) => variable.name === name)?.valueFrom?.configMapKeyRef;
      expect(ref?.name).toBe(parameters?.metadata?.name);
      return parameters?.data[ref?.key ?? ''];
    };
    for (const key of ['NODE_URL', 'SIGNER_URL', 'VERIFIER_ID', 'SCHEDULE_APPS'])
      expect(fromParameters(key)).toBe(shipped[key]);
    expect(JSON.stringify(env)).not.toMatch(/sandbox-system|livepeer-node/u);
  });

  it('lets the verifier out only to its Redis, DNS and public addresses', () => {
    const policies = rendered.platform.filter(
      (object) => object.kind === 'NetworkPolicy',
    ) as V1NetworkPolicy[];
    expect(policies.find((policy) => policy.metadata?.name === 'default-deny')?.spec?.policyTypes).toEqual([
      'Ingress',
      'Egress',
    ]);
    const egress = policies.find((policy) => policy.metadata?.name === 'verifier-egress')?.spec?.egress ?? [];
    const blocks = egress
      .flatMap((rule) => rule.to ?? [])
      .flatMap((peer) => (peer.ipBlock ? [peer.ipBlock] : []));
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.except).toEqual(
      expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']),
    );
    expect(egress.flatMap((rule) => rule.to ?? []).some((peer) => peer.namespaceSelector !== undefined)).toBe(
      false,
    );
  });
});
