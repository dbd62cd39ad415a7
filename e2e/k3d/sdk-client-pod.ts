// The official Python SDK's client side (e2e/local/sdk_client.py), run in a pod of its own namespace
// as any client of Node would: it reaches Node by its Service name, which only resolves in-cluster,
// and pays through the remote signer (node-sim serves one on its public port in paid mode).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@sandbox/testing';
import type { Kubectl } from './kubectl';
import { REPO_ROOT } from './node-image';
import { CLIENT_SCRIPT_DIR, IMAGE_PYTHON } from './sdk-client-image';

export const CLIENT_NAMESPACE = 'sandbox-e2e-client';
const NODE_URL = 'http://livepeer-node.sandbox-system.svc:8935';
/** node-sim's signer routes share Node's public port. */
const SIGNER_URL = NODE_URL;

/** One JSON line the client prints per step. */
export type SdkStep = Record<string, unknown> & { step: string };

/** The objects: namespace, the script as a ConfigMap, the pod (SDK image built by the suite) that runs it. */
export function sdkClientManifest(
  script: string,
  app: string,
  podName: string,
  image: string,
  extraArgs: readonly string[] = [],
): string {
  const objects = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CLIENT_NAMESPACE } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'sdk-client', namespace: CLIENT_NAMESPACE },
      data: { 'sdk_client.py': script },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: podName, namespace: CLIENT_NAMESPACE },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'client',
            image,
            imagePullPolicy: 'Never',
            command: [
              IMAGE_PYTHON,
              `${CLIENT_SCRIPT_DIR}/sdk_client.py`,
              NODE_URL,
              app,
              SIGNER_URL,
              ...extraArgs,
            ],
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
              runAsNonRoot: true,
              seccompProfile: { type: 'RuntimeDefault' },
            },
            volumeMounts: [{ name: 'script', mountPath: CLIENT_SCRIPT_DIR }],
          },
        ],
        volumes: [{ name: 'script', configMap: { name: 'sdk-client' } }],
      },
    },
  ];
  return objects.map((object) => JSON.stringify(object)).join('\n---\n');
}

/** The JSON step lines of the client's output (pip's noise goes to stderr, logs may interleave). */
export function parseSteps(output: string): SdkStep[] {
  return output.split('\n').flatMap((line) => {
    try {
      const parsed = JSON.parse(line.trim()) as unknown;
      const isStep =
        parsed !== null && typeof parsed === 'object' && typeof (parsed as SdkStep).step === 'string';
      return isStep ? [parsed as SdkStep] : [];
    } catch {
      return [];
    }
  });
}

/** How the client runs: the whole flow once, or one session held open with an SSE stream. */
export interface SdkClientRun {
  app: string;
  image: string;
  /** Pod name (unique per run in the client namespace). */
  pod: string;
  /** Hold one streaming session this long, then stop it (the drain checks). */
  holdSeconds?: number;
}

/** Starts the client pod (and its namespace and script ConfigMap); returns at once. */
export async function startSdkClient(kubectl: Kubectl, run: SdkClientRun): Promise<void> {
  const script = await readFile(join(REPO_ROOT, 'e2e', 'local', 'sdk_client.py'), 'utf8');
  const hold = run.holdSeconds === undefined ? [] : ['--hold-seconds', String(run.holdSeconds)];
  const dir = await mkdtemp(join(tmpdir(), 'sdk-client-'));
  try {
    await writeFile(join(dir, 'client.yaml'), sdkClientManifest(script, run.app, run.pod, run.image, hold));
    await kubectl.run(['apply', '-f', join(dir, 'client.yaml')], { timeoutMs: 60_000 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The steps the client pod has printed so far. */
export async function sdkClientSteps(kubectl: Kubectl, pod: string): Promise<SdkStep[]> {
  const logs = await kubectl.run(['-n', CLIENT_NAMESPACE, 'logs', pod, '-c', 'client'], {
    timeoutMs: 60_000,
  });
  return parseSteps(logs);
}

/** Waits for a step named `step` (the client failing first is an error with its steps). */
export async function waitForSdkStep(kubectl: Kubectl, pod: string, step: string): Promise<SdkStep> {
  return waitFor(
    async () => {
      const steps = await sdkClientSteps(kubectl, pod).catch(() => []);
      const error = steps.find((s) => s.step === 'error');
      if (error) throw new Error(`the SDK client ${pod} failed: ${JSON.stringify(error)}`);
      return steps.find((s) => s.step === step);
    },
    { description: `the SDK client ${pod} to print ${step}`, timeoutMs: 300_000, intervalMs: 1_000 },
  );
}

/** Waits for the client pod to end; its phase and every step it printed. */
export async function finishSdkClient(
  kubectl: Kubectl,
  pod: string,
  timeoutMs = 300_000,
): Promise<{ phase: string; steps: SdkStep[] }> {
  const phase = await waitFor(
    async () => {
      const found = await kubectl.json<{ status: { phase?: string } }>([
        '-n',
        CLIENT_NAMESPACE,
        'get',
        'pod',
        pod,
      ]);
      return ['Succeeded', 'Failed'].includes(found.status.phase ?? '') ? found.status.phase : undefined;
    },
    { description: `the SDK client ${pod} to finish`, timeoutMs, intervalMs: 2_000 },
  );
  return { phase, steps: await sdkClientSteps(kubectl, pod) };
}

/** Runs the whole client flow once, to its end. */
export async function runSdkClient(kubectl: Kubectl, app: string, image: string) {
  const pod = `sdk-client-${app}`;
  await startSdkClient(kubectl, { app, image, pod });
  return finishSdkClient(kubectl, pod);
}
