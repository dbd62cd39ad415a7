// App create → runner advertised in Node's discovery, end to end on the stack as `npm start` runs it
// (local gVisor driver, so root): each sample PUTs a new reusable app with one instance and polls the
// Node simulator's `GET /discovery` every 5 ms until the app's runner is listed, then deletes the app.
// The floor (`podman run` of the same image under the same runsc to its first HTTP 200) is sampled in
// between, so both see the same machine load. Where the time goes comes from the services' own
// timestamps: the instance record's createdAt and readyAt, and the adapter's first successful call.
import { DiscoveryResponseSchema, InstanceListSchema, RunnersResponseSchema } from '@sandbox/protocol';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import {
  exampleAppSpec,
  percentile,
  printFigure,
  startStack,
  waitFor,
  type StackProcess,
} from '@sandbox/testing';
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { chosenRuntime, floorSample } from './runsc-floor';

// `--samples=2` for a quick check of the bench itself; the figures are quoted from 20.
const { values } = parseArgs({ options: { samples: { type: 'string', default: '20' } } });
const SAMPLES = Number(values.samples);
const WARMUP = 1;
const POLL_MS = 5;

interface Sample {
  total: number;
  putToCreated: number;
  createdToReady: number;
  /** Namespace, firewall and `podman run` (up to the local driver's `instance started` log line). */
  createdToStarted: number;
  /** The app's own start and the readiness probe. */
  startedToReady: number;
  readyToRegistered: number;
  registeredToListed: number;
}

const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;

const appSpec = (image: string) =>
  exampleAppSpec(
    image,
    { kind: 'reusable', capacity: 1, minReplicas: 1, maxReplicas: 1 },
    // A whole CPU: the floor's container has no CPU limit, and a quota below one core stretches the
    // app's own start (Node.js boots on one thread), which is not the platform's overhead.
    { resources: { cpu: '1', memory: '256Mi' } },
  );

async function listed(stack: StackProcess, app: string): Promise<boolean> {
  const response = await fetch(url(stack.ports.NODE_SIM_PORT, '/discovery'));
  const entries = DiscoveryResponseSchema.parse(await response.json());
  return entries.some((entry) => entry.runners.some((runner) => runner.app === app));
}

/** The pino `time` of the local driver's `instance started` line for the instance, or NaN. */
function startedAt(output: string, instanceId: string): number {
  const line = output
    .split('\n')
    .find(
      (text) => text.includes('"msg":"instance started"') && text.includes(`"instanceId":"${instanceId}"`),
    );
  if (line === undefined) return Number.NaN;
  return Number((JSON.parse(line.slice(line.indexOf('{'))) as { time?: unknown }).time);
}

async function stages(stack: StackProcess, app: string, putAt: number, listedAt: number): Promise<Sample> {
  const headers = await stack.headers('read');
  const instances = InstanceListSchema.parse(
    await (
      await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/instances?app=${app}`), { headers })
    ).json(),
  ).instances;
  const runners = RunnersResponseSchema.parse(
    await (await fetch(url(stack.ports.ADAPTER_PORT, `/v1/runners?app=${app}`), { headers })).json(),
  ).runners;
  const created = Date.parse(instances[0]?.createdAt ?? '');
  const ready = Date.parse(instances[0]?.readyAt ?? '');
  const registered = Date.parse(runners[0]?.lastBeat?.at ?? '');
  const started = startedAt(stack.output(), instances[0]?.instanceId ?? '');
  return {
    total: listedAt - putAt,
    putToCreated: created - putAt,
    createdToReady: ready - created,
    createdToStarted: started - created,
    startedToReady: ready - started,
    readyToRegistered: registered - ready,
    registeredToListed: listedAt - registered,
  };
}

async function createAndDiscover(stack: StackProcess, app: string, image: string): Promise<Sample> {
  const headers = { 'content-type': 'application/json', ...(await stack.headers('admin')) };
  const putAt = Date.now();
  const put = await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/apps/${app}`), {
    method: 'PUT',
    headers,
    body: JSON.stringify(appSpec(image)),
  });
  if (put.status !== 201) throw new Error(`PUT /v1/apps/${app} answered ${put.status}: ${await put.text()}`);
  while (!(await listed(stack, app))) {
    if (Date.now() - putAt > 60_000) throw new Error(`${app} was not listed in discovery within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const sample = await stages(stack, app, putAt, Date.now());
  await fetch(url(stack.ports.INSTANCE_MANAGER_PORT, `/v1/apps/${app}`), { method: 'DELETE', headers });
  await waitFor(async () => !(await listed(stack, app)), {
    timeoutMs: 60_000,
    description: `${app} unlisted`,
  });
  return sample;
}

// Figure names of the stages, in path order (snake case of the Sample fields).
const STAGES: [name: string, key: keyof Sample][] = [
  ['put_to_created', 'putToCreated'],
  ['created_to_ready', 'createdToReady'],
  ['created_to_started', 'createdToStarted'],
  ['started_to_ready', 'startedToReady'],
  ['ready_to_registered', 'readyToRegistered'],
  ['registered_to_listed', 'registeredToListed'],
];

function report(samples: Sample[], floor: number[]): void {
  const figure = (name: string, values: number[]) => {
    printFigure(`create_to_discovery_${name}_p50_ms`, percentile(values, 50), values.length);
    printFigure(`create_to_discovery_${name}_p95_ms`, percentile(values, 95), values.length);
  };
  const totals = samples.map((sample) => sample.total);
  figure('total', totals);
  figure('floor_podman_runsc_first_200', floor);
  const ratio = percentile(totals, 50) / percentile(floor, 50);
  printFigure('create_to_discovery_total_to_floor_p50_ratio', ratio, samples.length);
  for (const [name, key] of STAGES)
    figure(
      name,
      samples.map((sample) => sample[key]),
    );
}

if (process.getuid?.() !== 0) throw new Error('create-to-discovery needs root (the local driver)');
const image = await ensureExampleAppImage();
const stack = await startStack({
  env: { INSTANCE_PREFIX: 'ecd', INSTANCE_SUBNET: `10.219.${randomInt(64, 248)}.0/24` },
});
try {
  const runtime = chosenRuntime(stack.output());
  if (runtime === undefined) throw new Error('the instance-manager did not log its gVisor runtime');
  process.stderr.write(`runtime ${runtime.runscPath} ${runtime.runtimeFlags.join(' ')}\n`);
  const samples: Sample[] = [];
  const floor: number[] = [];
  for (let index = 0; index < WARMUP + SAMPLES; index += 1) {
    const floorMs = await floorSample(image, runtime, '/healthz');
    const sample = await createAndDiscover(stack, `bench-cd-${index}`, image);
    if (index < WARMUP) continue;
    floor.push(floorMs);
    samples.push(sample);
    process.stderr.write(`sample ${index}: ${JSON.stringify(sample)} floor ${floorMs.toFixed(0)}\n`);
  }
  report(samples, floor);
} finally {
  await stack.cleanup();
}
