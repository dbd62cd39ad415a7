import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadYaml } from '@kubernetes/client-node';
import { REPO_ROOT } from './node-image';
import { K3D, K3S_BASE_IMAGE } from './pins';

interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { env?: Record<string, string>; steps: { run?: string; uses?: string }[] }>;
}

const workflow = async (name: string) =>
  loadYaml<Workflow>(await readFile(join(REPO_ROOT, '.github', 'workflows', name), 'utf8'));

describe('the hosted CI workflows', () => {
  it('runs .ci/run on every push', async () => {
    const ci = await workflow('ci.yml');
    expect(Object.keys(ci.on)).toContain('push');
    expect(ci.jobs['ci']?.steps.map((step) => step.run?.trim())).toContain('.ci/run');
  });

  it('runs the k3d suite on every push, requiring it, with the k3d and kubectl the suite pins', async () => {
    const e2e = await workflow('e2e-k3d.yml');
    expect(Object.keys(e2e.on)).toEqual(['push']);
    const job = e2e.jobs['k3d'];
    expect(job?.env?.['K3D_VERSION']).toBe(K3D.version);
    expect(job?.env?.['K3D_SHA256']).toBe(K3D.sha256['amd64']);
    // kubectl of the cluster's own release (the k3s tag is v<kubernetes>-k3s<n>).
    expect(K3S_BASE_IMAGE).toContain(`:${job?.env?.['KUBECTL_VERSION']}-k3s`);
    const runs = job?.steps.map((step) => step.run ?? '') ?? [];
    expect(runs.some((run) => run.includes('sha256sum --check') && run.includes('K3D_SHA256'))).toBe(true);
    expect(runs.at(-1)?.trim()).toBe('npm run e2e:k3d -- --require');
  });
});
