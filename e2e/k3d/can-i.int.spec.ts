// The k3d suite's `kubectl auth can-i` matrix against the harness's real kube-apiserver with deploy/
// applied: the same questions the SubjectAccessReview spec asks, through kubectl's impersonation. It
// needs Go (the harness) and the kubectl the harness builds; without them it fails, never skips.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { requireKubectl, startDeployedHarness, type DeployedHarness } from '@sandbox/kube-harness';
import { canIArgs, canIMatrix, parseCanI } from './can-i';
import { exec } from './exec';

let deployed: DeployedHarness;
let kubectl: string;

describe('kubectl auth can-i, as each service account, on the real API server', () => {
  beforeAll(async () => {
    kubectl = await requireKubectl(process.env);
    deployed = await startDeployedHarness();
  }, 30 * 60_000);

  afterAll(async () => {
    await deployed?.harness.stop();
  }, 60_000);

  it('answers every grant yes and every near miss no', async () => {
    expect(await canIMatrix(exec, kubectl, deployed.harness.kubeconfigPath)).toEqual([]);
  }, 600_000);

  it('tells a grant from its near miss (the matrix could fail)', async () => {
    const ask = async (name: string) => {
      const question = { verb: 'get', resource: 'secrets', namespace: 'sandbox-system', name };
      const args = ['--kubeconfig', deployed.harness.kubeconfigPath, ...canIArgs('adapter', question)];
      const result = await exec(kubectl, args, { allowFailure: true });
      return parseCanI(result.stdout, result.code);
    };
    expect(await ask('adapter-bootstrap')).toBe(true);
    expect(await ask('orchestrator-wallet')).toBe(false);
  });
});
