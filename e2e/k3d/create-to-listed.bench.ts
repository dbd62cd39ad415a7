// App declared → pod Ready → runner listed in Node's discovery, on the system as deployed: the local
// node (kubelet, containerd, gVisor's shim) with the k3d overlay installed, as `npm run e2e:node`
// makes it. Each sample PUTs a new reusable app with one instance through the instance-manager's API,
// polls the pod until Ready and Node's `GET /discovery` (from the host, through the Service's ClusterIP)
// until the runner is listed, then deletes the app. `npm run bench -- create-to` runs it beside the
// local driver's create → discovery bench, so both see the same machine.
import { parseArgs } from 'node:util';
import { exampleAppSpec, percentile, printFigure, waitFor } from '@sandbox/testing';
import { exec } from './exec';
import { createLocalNodeProvider } from './local-node-provider';
import { deploySystem } from './suite';
import { releaseResources, type SuiteResources } from './suite-resources';
import { appPods, declareApp, discoveredRunners } from './system-flow';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '20' } } });
const SAMPLES = Number(values.samples);
const WARMUP = 1;
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Sample {
  total: number;
  declaredToReady: number;
  readyToListed: number;
}

const resources: SuiteResources = { dirs: [] };
try {
  const context = await deploySystem(exec, () => createLocalNodeProvider(exec, log), resources, log);
  const kubectl = context.provider.kubectl;
  const samples: Sample[] = [];
  for (let index = 0; index < WARMUP + SAMPLES; index += 1) {
    const app = `bench-${index}`;
    const spec = exampleAppSpec(
      context.images.app,
      { kind: 'reusable', capacity: 1, minReplicas: 1, maxReplicas: 1 },
      { price: { usd: '0.5', unit: 'hour' } },
    );
    const declared = Date.now();
    await declareApp(context.managerUrl, context.managerToken, app, spec);
    await waitFor(async () => (await appPods(kubectl, app)).some((pod) => pod.ready), {
      description: `${app}'s pod Ready`,
      timeoutMs: 120_000,
      intervalMs: 20,
    });
    const ready = Date.now();
    await waitFor(async () => (await discoveredRunners(context.nodeUrl, app)) > 0, {
      description: `${app} listed by Node`,
      timeoutMs: 120_000,
      intervalMs: 20,
    });
    const listed = Date.now();
    await fetch(`${context.managerUrl}/v1/apps/${app}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${context.managerToken}` },
    });
    await waitFor(async () => (await appPods(kubectl, app)).length === 0, {
      description: `${app}'s pod gone`,
      timeoutMs: 120_000,
    });
    if (index >= WARMUP)
      samples.push({
        total: listed - declared,
        declaredToReady: ready - declared,
        readyToListed: listed - ready,
      });
  }
  for (const key of ['total', 'declaredToReady', 'readyToListed'] as const) {
    const figures = samples.map((sample) => sample[key]);
    const name = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    printFigure(`node_create_to_listed_${name}_p50_ms`, percentile(figures, 50), figures.length);
    printFigure(`node_create_to_listed_${name}_p95_ms`, percentile(figures, 95), figures.length);
  }
} finally {
  await releaseResources(resources);
}
