// The Node simulator (tools/node-sim) as a child process, restartable on the same ports, for specs and benches.
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import { fileURLToPath } from 'node:url';

const SIM_MAIN = fileURLToPath(new URL('../../../../tools/node-sim/src/main.ts', import.meta.url));
const READY_TIMEOUT_MS = 30_000;

/** Options of {@link startNodeSim}. */
export interface NodeSimOptions {
  secretFile: string;
  /** Go durations. @defaultValue 5s / 30s (Node's defaults) */
  heartbeatInterval?: string;
  heartbeatTtl?: string;
  /** Runner-facing base URL (e.g. a fault proxy in front of the simulator). */
  runnerServiceUrl?: string;
  /** More flags (`--paid`, `--wei-per-usd`, grants). */
  extraArgs?: string[];
}

/** A running simulator. */
export interface NodeSimProcess {
  readonly publicUrl: string;
  readonly metricsUrl: string;
  readonly port: number;
  /** Node's shutdown (SIGTERM: sessions released, channels closed) or a crash (SIGKILL). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts again on the same ports (after {@link stop}). */
  start(): Promise<void>;
  /** Output of the current process. */
  output(): string;
}

/** Starts the simulator on free loopback ports and waits for its listening line. */
export async function startNodeSim(options: NodeSimOptions): Promise<NodeSimProcess> {
  let child: ChildProcessHandle | undefined;
  /** The latest run, kept after it stops for its output. */
  let latest: ChildProcessHandle | undefined;
  let listen = '127.0.0.1:0';
  let metricsListen = '127.0.0.1:0';
  const args = (): string[] => [
    ...['--listen', listen, '--metrics-listen', metricsListen],
    ...['--bootstrap-secret-file', options.secretFile],
    ...[
      '--heartbeat-interval',
      options.heartbeatInterval ?? '5s',
      '--heartbeat-ttl',
      options.heartbeatTtl ?? '30s',
    ],
    ...(options.runnerServiceUrl === undefined ? [] : ['--runner-service-url', options.runnerServiceUrl]),
    ...['--log-level', 'warn'],
    ...(options.extraArgs ?? []),
  ];
  const launch = async (): Promise<{ publicUrl: string; metricsUrl: string }> => {
    child = latest = startChildProcess(process.execPath, ['--import', 'tsx', SIM_MAIN, ...args()]);
    const line = await child.waitForLine((text) => text.includes('"node-sim listening"'), READY_TIMEOUT_MS);
    return JSON.parse(line) as { publicUrl: string; metricsUrl: string };
  };
  const urls = await launch();
  const port = Number(new URL(urls.publicUrl).port);
  listen = `127.0.0.1:${port}`;
  metricsListen = `127.0.0.1:${new URL(urls.metricsUrl).port}`;
  return {
    publicUrl: urls.publicUrl,
    metricsUrl: urls.metricsUrl,
    port,
    async stop(signal = 'SIGTERM') {
      const running = child;
      child = undefined;
      if (running === undefined || !running.isRunning()) return;
      if (signal === 'SIGKILL') await running.kill();
      else running.signal(signal);
      await running.exited;
    },
    async start() {
      await launch();
    },
    output: () => latest?.output() ?? '',
  };
}

/** `livepeer_runners` and `livepeer_sessions` from the simulator's metrics listener. */
export async function simCounts(metricsUrl: string): Promise<{ runners: number; sessions: number }> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const value = (name: string): number => Number(new RegExp(`^${name} (\\d+)`, 'mu').exec(text)?.[1] ?? NaN);
  return { runners: value('livepeer_runners'), sessions: value('livepeer_sessions') };
}

/** One runner of `GET /discovery`. */
export interface DiscoveredRunner {
  url: string;
  app: string;
  capacity: number;
  capacity_used: number;
  capacity_available: number;
  mode: string;
  metadata?: string;
  version?: string;
  gpu?: { id?: string; name?: string; vram_mb?: number };
  /** Absent for a free runner (newer Nodes omit the zero price). */
  price_info?: { price: number; currency: string; unit: string; price_usd?: number };
}

export async function discover(publicUrl: string): Promise<DiscoveredRunner[]> {
  const body = (await (await fetch(`${publicUrl}/discovery`)).json()) as Array<{
    runners: DiscoveredRunner[];
  }>;
  return body.flatMap((entry) => entry.runners);
}

/** A client reservation (`POST /apps/{rid}/session`). */
export async function reserveSession(
  publicUrl: string,
  runnerId: string,
): Promise<{ status: number; sessionId?: string }> {
  const response = await fetch(`${publicUrl}/apps/${runnerId}/session`, { method: 'POST' });
  const body = (await response.json()) as { session_id?: string };
  return {
    status: response.status,
    ...(body.session_id === undefined ? {} : { sessionId: body.session_id }),
  };
}

/** A client stop (`POST /apps/{rid}/session/{sid}/stop`). */
export async function stopSession(publicUrl: string, runnerId: string, sessionId: string): Promise<number> {
  const response = await fetch(`${publicUrl}/apps/${runnerId}/session/${sessionId}/stop`, { method: 'POST' });
  await response.text();
  return response.status;
}
