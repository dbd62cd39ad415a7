// The official Python SDK's client side (e2e/local/sdk_client.py), run in a pod of its own namespace
// as any client of Node would: it reaches Node by its Service name, which only resolves in-cluster.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDK_PACKAGE, waitFor } from '@sandbox/testing';
import type { Kubectl } from './kubectl';
import { REPO_ROOT } from './node-image';
import { SDK_CLIENT_IMAGE } from './pins';

export const CLIENT_NAMESPACE = 'sandbox-e2e-client';
const NODE_URL = 'http://livepeer-node.sandbox-system.svc:8935';

/** One JSON line the client prints per step. */
export type SdkStep = Record<string, unknown> & { step: string };

/** The objects: namespace, the script as a ConfigMap, the pod that installs the SDK and runs it. */
export function sdkClientManifest(script: string, app: string, podName: string): string {
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
            image: SDK_CLIENT_IMAGE,
            command: [
              'sh',
              '-c',
              `pip install --quiet --disable-pip-version-check "${SDK_PACKAGE}" >&2 && exec python /client/sdk_client.py "$0" "$1"`,
              NODE_URL,
              app,
            ],
            volumeMounts: [{ name: 'script', mountPath: '/client' }],
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

/** Runs the client pod to its end and returns its steps and phase. */
export async function runSdkClient(
  kubectl: Kubectl,
  app: string,
): Promise<{ phase: string; steps: SdkStep[] }> {
  const script = await readFile(join(REPO_ROOT, 'e2e', 'local', 'sdk_client.py'), 'utf8');
  const pod = `sdk-client-${app}`;
  const dir = await mkdtemp(join(tmpdir(), 'sdk-client-'));
  try {
    await writeFile(join(dir, 'client.yaml'), sdkClientManifest(script, app, pod));
    await kubectl.run(['apply', '-f', join(dir, 'client.yaml')], { timeoutMs: 60_000 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const phase = await waitFor(
    async () => {
      const status = await kubectl.json<{ status: { phase?: string } }>([
        '-n',
        CLIENT_NAMESPACE,
        'get',
        'pod',
        pod,
      ]);
      return ['Succeeded', 'Failed'].includes(status.status.phase ?? '') ? status.status.phase : undefined;
    },
    { description: 'the SDK client pod to finish', timeoutMs: 900_000, intervalMs: 3_000 },
  );
  const logs = await kubectl.run(['-n', CLIENT_NAMESPACE, 'logs', pod, '-c', 'client'], {
    timeoutMs: 60_000,
  });
  return { phase, steps: parseSteps(logs) };
}
