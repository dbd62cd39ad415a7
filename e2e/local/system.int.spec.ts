// The whole system on the local driver, as `npm start` runs it: an example-app spec becomes gVisor
// instances, the adapter registers them with Node (the simulator), the official Python SDK's client side
// discovers, reserves, calls HTTP, SSE and WebSocket through Node and stops, and the single-session
// instance is then replaced. Needs root (network namespaces, iptables), as the instance-manager does.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { InstanceListSchema } from '@sandbox/protocol';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import {
  asRoot,
  describeRequiring,
  ensureSdkVenv,
  exampleAppSpec,
  startStack,
  waitFor,
  type StackProcess,
} from '@sandbox/testing';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { parseSteps } from '../k3d/sdk-client-pod';
import { declareApp, discoveredRunners as runnersOf } from '../k3d/system-flow';

const APP = 'echo';
const describeAsRoot = describeRequiring(asRoot);

let stack: StackProcess;
let python = '';
let poolBefore: string[] = [];
const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;

async function instances(): Promise<z.infer<typeof InstanceListSchema>['instances']> {
  const response = await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/instances?app=${APP}`), {
    headers: await stack.headers('read'),
  });
  return InstanceListSchema.parse(await response.json()).instances;
}

/** The same steps the k3d suite runs, here against the local stack's Node simulator. */
const discoveredRunners = () => runnersOf(url(stack.ports.NODE_SIM_PORT, ''), APP);

/** What a failed wait reports: the instances, what Node lists, and the stack's recent warnings. */
async function situation(): Promise<string> {
  const listed = await instances().then(
    (all) => all.map((i) => `${i.instanceId}:${i.state}`).join(', '),
    (error: unknown) => `unreadable (${(error as Error).message})`,
  );
  const runners = await discoveredRunners().catch(
    (error: unknown) => `unreadable (${(error as Error).message})`,
  );
  const warnings = stack
    .output()
    .split('\n')
    .filter((line) => /warn|error|"level":(40|50|60)/i.test(line))
    .slice(-30)
    .join('\n');
  return `instances: ${listed}; runners Node lists: ${runners}; the stack's last warnings:\n${warnings}`;
}

/** Waits for `count` runners of the app in Node's discovery, saying what it saw when they are not there. */
async function waitForRunners(count: number, timeoutMs: number): Promise<void> {
  await waitFor(async () => (await discoveredRunners()) === count, {
    timeoutMs,
    description: `${count} runners discovered`,
  }).catch(async (error: unknown) => {
    throw new Error(`${(error as Error).message}; ${await situation()}`);
  });
}

describeAsRoot('the system on the local driver with the Python SDK as client', () => {
  beforeAll(async () => {
    const image = await ensureExampleAppImage();
    python = ensureSdkVenv();
    stack = await startStack({
      env: { INSTANCE_PREFIX: 'esy', INSTANCE_SUBNET: '10.219.0.0/24' },
      readyTimeoutMs: 120_000,
    });
    const token = (await stack.headers('admin')).authorization.slice('Bearer '.length);
    const spec = exampleAppSpec(image, { kind: 'single-session', warmPool: 2, max: 4 }, { egress: 'none' });
    await declareApp(url(stack.ports.INSTANCE_MANAGER_PORT, ''), token, APP, spec);
  }, 300_000);

  afterAll(async () => {
    if (!stack) return;
    // Instances outlive a manager restart by design, so the test deletes its app before stopping.
    await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/apps/${APP}`), {
      method: 'DELETE',
      headers: await stack.headers('admin'),
    });
    await waitFor(async () => (await instances()).every((instance) => instance.state === 'gone'), {
      timeoutMs: 60_000,
      description: 'every instance gone',
    }).catch(() => undefined);
    await stack.cleanup();
  }, 120_000);

  it('registers the warm pool with Node', async () => {
    await waitForRunners(2, 60_000);
    poolBefore = (await instances()).filter((i) => i.state === 'ready').map((i) => i.instanceId);
    expect(poolBefore).toHaveLength(2);
  }, 90_000);

  it('serves the SDK client through Node: discover, reserve, HTTP, SSE, WebSocket, stop', async () => {
    await waitForRunners(2, 60_000);
    const orchestrator = url(stack.ports.NODE_SIM_PORT, '');
    const run = spawnSync(python, [resolve(import.meta.dirname, 'sdk_client.py'), orchestrator, APP], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const steps = parseSteps(run.stdout);
    expect(steps).toEqual([
      { step: 'discovered', count: 2 },
      { step: 'reserved', session_id: expect.any(String), paid: false },
      { step: 'http', echoed: { via: 'sdk' } },
      { step: 'sse', count: 3 },
      { step: 'ws', data: 'hello-through-node' },
      { step: 'stopped', session_id: expect.any(String) },
    ]);
    expect(run.status).toBe(0);
  }, 150_000);

  it('replaces the single-session instance after its session', async () => {
    // The pool holds two ready instances again, and exactly one of them is new.
    let ready: string[] = [];
    await waitFor(
      async () => {
        ready = (await instances()).filter((i) => i.state === 'ready').map((i) => i.instanceId);
        return ready.length === 2 && ready.filter((id) => poolBefore.includes(id)).length === 1;
      },
      { timeoutMs: 60_000, description: 'the used instance replaced' },
    ).catch((error: unknown) => {
      throw new Error(
        `${(error as Error).message}; ready before: ${poolBefore.join(', ')}; now: ${ready.join(', ')}`,
      );
    });
    await waitForRunners(2, 30_000);
  }, 120_000);
});
