import { createMemoryLogger } from '@sandbox/testing';
import type { MemoryLogger } from '@sandbox/testing';
import type { NodeSimDeps, NodeSimOptions, RunningNodeSim } from '../node-sim';
import { startNodeSim } from '../node-sim';
import { ManualClock } from '@sandbox/testing';

export const BOOTSTRAP_SECRET = 'test-bootstrap-secret';

/** A simulator on 127.0.0.1 (free ports) driven by a manual clock. */
export interface SimFixture {
  readonly sim: RunningNodeSim;
  readonly clock: ManualClock;
  readonly log: MemoryLogger;
  /** Public base URL. */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startSimFixture(
  overrides: Partial<NodeSimOptions> = {},
  deps: Partial<NodeSimDeps> = {},
  clock: ManualClock = new ManualClock(),
): Promise<SimFixture> {
  const log = createMemoryLogger('info');
  const sim = await startNodeSim(
    {
      listen: { host: '127.0.0.1', port: 0 },
      metricsListen: { host: '127.0.0.1', port: 0 },
      bootstrapSecret: Buffer.from(BOOTSTRAP_SECRET),
      heartbeatIntervalMs: 5_000,
      heartbeatTtlMs: 30_000,
      runnerGrants: [],
      sessionProxyGrants: [],
      shutdownGraceMs: 1_000,
      ...overrides,
    },
    { clock, logger: log.logger, ...deps },
  );
  return { sim, clock, log, url: sim.publicUrl, stop: () => sim.stop() };
}

/** A response read in full. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json<T = unknown>(): T;
}

export async function call(url: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
}

/** `POST /runners/heartbeat` with a raw `Authorization` and a JSON (or raw string) body. */
export function heartbeat(fx: SimFixture, auth: string, body: unknown): Promise<Reply> {
  return call(`${fx.url}/runners/heartbeat`, {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export interface Registration {
  runner_id: string;
  heartbeat_secret: string;
  session_ids: string[];
  o2r: { url: string; channel_name: string };
}

/** Registers a runner with the bootstrap secret and returns Node's answer. */
export async function register(fx: SimFixture, body: Record<string, unknown>): Promise<Registration> {
  const reply = await heartbeat(fx, BOOTSTRAP_SECRET, {
    app: 'echo',
    runner_url: 'http://127.0.0.1:9',
    ...body,
  });
  if (reply.status !== 200) throw new Error(`registration failed: ${reply.status} ${reply.text}`);
  return reply.json<Registration>();
}
