// One spec file's world: a secret file, the simulator behind a fault proxy, and helpers over the adapter API.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunnerView, RunnersResponse } from '@sandbox/protocol';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { startNodeSim, type NodeSimOptions, type NodeSimProcess } from './node-sim-process';

/** A canary bootstrap secret: recognisable, so specs can prove it never leaks. */
export function canarySecret(): string {
  return `canary-bootstrap-${randomBytes(12).toString('hex')}`;
}

/** The simulator (runner-facing URL = the proxy) and the proxy in front of it. */
export interface SimWorld {
  readonly dir: string;
  readonly secret: string;
  readonly secretFile: string;
  readonly sim: NodeSimProcess;
  readonly proxy: FaultProxy;
  close(): Promise<void>;
}

export async function startSimWorld(
  options: Omit<NodeSimOptions, 'secretFile' | 'runnerServiceUrl'> = {},
): Promise<SimWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'adapter-spec-'));
  const secret = canarySecret();
  const secretFile = join(dir, 'bootstrap-secret');
  await writeFile(secretFile, secret, { mode: 0o600 });
  const holder: { sim?: NodeSimProcess } = {};
  const proxy = await startFaultProxy({
    target: () => holder.sim?.publicUrl ?? 'http://127.0.0.1:9',
    bootstrapSecret: secret,
  });
  holder.sim = await startNodeSim({ ...options, secretFile, runnerServiceUrl: proxy.url });
  const sim = holder.sim;
  return {
    dir,
    secret,
    secretFile,
    sim,
    proxy,
    async close() {
      await sim.stop();
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Where an adapter's API is, and the headers (a read token) to call it with. */
export interface AdapterApi {
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** `GET /v1/runners` of an adapter. */
export async function listRunners(api: AdapterApi): Promise<RunnersResponse> {
  const response = await fetch(`${api.url}/v1/runners`, { headers: api.headers });
  if (response.status !== 200) throw new Error(`GET /v1/runners answered ${response.status}`);
  return (await response.json()) as RunnersResponse;
}

/** One registration's view, or undefined. */
export async function runnerView(api: AdapterApi, instanceId: string): Promise<RunnerView | undefined> {
  return (await listRunners(api)).runners.find((view) => view.instanceId === instanceId);
}

/**
 * A value of the adapter's `/metrics`: the first series of `name` whose labels include every given
 * one (0 when absent).
 */
export async function metricValue(
  adapterUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(`${adapterUrl}/metrics`)).text();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/u.exec(line);
    if (match?.[1] !== name) continue;
    const present = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => present.includes(`${key}="${value}"`)))
      return Number(match[3]);
  }
  return 0;
}

/** O2R session events the adapter has processed (every one is timed for the lag histogram). */
export function o2rEventsProcessed(adapterUrl: string): Promise<number> {
  return metricValue(adapterUrl, 'adapter_o2r_lag_seconds_count');
}
