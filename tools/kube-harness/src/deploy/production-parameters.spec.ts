import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEPLOY_DIR } from '../manifests/manifests';

const CHECK = join(DEPLOY_DIR, 'production', 'check-parameters.sh');
const GRANTS = join(DEPLOY_DIR, 'production', 'runner-grants.sh');
const SHIPPED = join(DEPLOY_DIR, 'production', 'parameters.env');
const dir = mkdtempSync(join(tmpdir(), 'parameters-'));

const run = (script: string, args: string[]) => {
  const result = spawnSync('sh', [script, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
};

/** Parameters an operator could ship: every one set, well-formed. */
const VALID: Record<string, string> = {
  NODE_IMAGE: 'docker.io/livepeer/go-livepeer:v0.8.1',
  REDEEMER_URL: 'https://redeemer.payments.acme.io/v1',
  KUBE_CLUSTER_CIDRS: '10.42.0.0/16,10.43.0.0/16,203.0.114.7/32',
  KUBE_DNS_SERVERS: '1.1.1.1,9.9.9.9',
  NODE_RUNNER_GRANTS: '10.42.0.1:8080,10.42.0.2:8080',
};

let files = 0;
function check(parameters: Record<string, string>) {
  const file = join(dir, `parameters-${files++}.env`);
  const lines = Object.entries(parameters).map(([key, value]) => `${key}=${value}`);
  writeFileSync(file, `# an operator's file\n${lines.join('\n')}\n`);
  return run(CHECK, [file]);
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('deploy/production/check-parameters.sh', () => {
  it('refuses the shipped parameters, naming every placeholder', () => {
    const result = run(CHECK, [SHIPPED]);
    expect(result.status).toBe(1);
    for (const key of Object.keys(VALID)) expect(result.output).toContain(`${key}:`);
  });

  it('accepts a complete, well-formed set, silently', () => {
    expect(check(VALID)).toEqual({ status: 0, output: '' });
    expect(check({ ...VALID, NODE_IMAGE: `ghcr.io/livepeer/node@sha256:${'a'.repeat(64)}` }).status).toBe(0);
  });

  it.each([
    ['NODE_IMAGE', 'docker.io/livepeer/go-livepeer:latest'],
    ['NODE_IMAGE', 'docker.io/livepeer/go-livepeer'],
    ['REDEEMER_URL', 'http://redeemer.payments.acme.io'],
    ['REDEEMER_URL', 'https://redeemer.payments.acme.io:8443'],
    ['REDEEMER_URL', 'https://redemption.sandbox-system.svc'],
    ['REDEEMER_URL', 'https://10.0.0.5'],
    ['KUBE_CLUSTER_CIDRS', '10.42.0.0/16,10.43.0.0'],
    ['KUBE_CLUSTER_CIDRS', '10.42.0.0/33'],
    ['KUBE_DNS_SERVERS', '10.43.0.10'],
    ['KUBE_DNS_SERVERS', '1.1.1.1,192.168.1.1'],
    ['NODE_RUNNER_GRANTS', '10.42.0.0/24:8080'],
    ['NODE_RUNNER_GRANTS', ''],
  ])('refuses %s=%s', (key, value) => {
    const result = check({ ...VALID, [key]: value });
    expect(result.status).toBe(1);
    expect(result.output).toContain(`${key}:`);
  });

  it('refuses a file without a parameter', () => {
    const { NODE_RUNNER_GRANTS: _left, ...rest } = VALID;
    expect(check(rest).output).toContain('NODE_RUNNER_GRANTS is missing');
  });
});

describe('deploy/production/runner-grants.sh', () => {
  it("prints every host address of a node's pod range on the app port, as the k3d overlay grants them", () => {
    const result = run(GRANTS, ['10.42.0.0/24', '8080']);
    expect(result.status).toBe(0);
    const grants = result.output.trim().split(',');
    expect(grants).toHaveLength(254);
    expect([grants[0], grants.at(-1)]).toEqual(['10.42.0.1:8080', '10.42.0.254:8080']);
    const k3d = readFileSync(join(DEPLOY_DIR, 'k3d', 'node-sim-args.yaml'), 'utf8');
    expect(k3d).toContain(`- --runner-grants=${grants.join(',')}\n`);
    expect(check({ ...VALID, NODE_RUNNER_GRANTS: grants.join(',') }).status).toBe(0);
  });

  it('refuses ranges Node could not be given one by one, and malformed input', () => {
    for (const args of [['10.42.0.0/16', '8080'], ['10.42.0.0/24', '0'], ['10.42.0/24', '8080'], ['x']])
      expect(run(GRANTS, args).status).toBe(2);
  });
});
