import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { guardProcessGroup } from '@sandbox/process';
import { until } from './until';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** A child process in its own process group, its output kept, killed with its group. */
export interface ChildHandle {
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `env`, when given, is the child's whole environment. */
export function spawnTs(entry: string, args: string[], env?: Record<string, string>): ChildHandle {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, entry), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    ...(env === undefined ? {} : { env }),
  });
  // Killed with its group if this process dies first (a killed test runner runs no afterAll).
  const guard = child.pid === undefined ? undefined : guardProcessGroup(child.pid);
  child.once('exit', () => guard?.release());
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          return;
        }
      }
      await exited;
    },
  };
}

/** The evaluation responder as a plain process on a port. */
export async function startResponderProcess(port: number): Promise<ChildHandle> {
  const handle = spawnTs('apps/eval-responder/src/main.ts', [], { PORT: String(port), HOST: '127.0.0.1' });
  await until(() => (handle.output().includes('"listening"') ? true : undefined), 'the responder to listen');
  return handle;
}

/** The Node simulator in paid mode (tickets always win), listening on the given ports. */
export async function startPaidNodeSim(options: {
  port: number;
  metricsPort: number;
  bootstrapFile: string;
  grants: string[];
  extraArgs?: string[];
}): Promise<ChildHandle & { url: string; metricsUrl: string }> {
  const args = [
    ...['--listen', `127.0.0.1:${options.port}`, '--metrics-listen', `127.0.0.1:${options.metricsPort}`],
    ...['--bootstrap-secret-file', options.bootstrapFile, '--heartbeat-ttl', '600s'],
    ...['--paid', '--wei-per-usd', '1000000000000', '--ticket-win-prob', '1.0'],
    ...options.grants.flatMap((grant) => ['--runner-grant', grant]),
    ...(options.extraArgs ?? []),
  ];
  const handle = spawnTs('tools/node-sim/src/main.ts', args);
  await until(
    () => (handle.output().includes('"node-sim listening"') ? true : undefined),
    'node-sim to listen',
  );
  return {
    ...handle,
    url: `http://127.0.0.1:${options.port}`,
    metricsUrl: `http://127.0.0.1:${options.metricsPort}`,
  };
}

/**
 * Registers a runner with Node like the adapter does (bootstrap credential, paid hourly price);
 * resolves with the runner's own credential, which unregistering needs.
 */
export async function registerRunner(
  nodeUrl: string,
  bootstrapSecret: string,
  runner: {
    runnerId: string;
    app: string;
    url: string;
    metadata?: string;
    /** @defaultValue persistent at $1 per hour */
    mode?: 'persistent' | 'single-shot';
    priceInfo?: { price: number; currency: string; unit: string };
  },
): Promise<string> {
  const reply = await fetch(`${nodeUrl}/runners/heartbeat`, {
    method: 'POST',
    headers: { authorization: bootstrapSecret, 'content-type': 'application/json' },
    body: JSON.stringify({
      runner_id: runner.runnerId,
      app: runner.app,
      runner_url: runner.url,
      capacity: 4,
      ...(runner.mode === undefined ? {} : { mode: runner.mode }),
      price_info: runner.priceInfo ?? { price: 3600, currency: 'usd', unit: 'hour' },
      ...(runner.metadata === undefined ? {} : { metadata: runner.metadata }),
    }),
  });
  if (reply.status !== 200) throw new Error(`registration failed: ${reply.status} ${await reply.text()}`);
  return ((await reply.json()) as { heartbeat_secret: string }).heartbeat_secret;
}

/** Takes a runner out of Node's registry, as the adapter does when its instance goes away. */
export async function unregisterRunner(nodeUrl: string, runnerId: string, credential: string): Promise<void> {
  const reply = await fetch(`${nodeUrl}/runners/${runnerId}/unregister`, {
    method: 'POST',
    headers: { authorization: credential },
  });
  if (reply.status !== 200) throw new Error(`unregister failed: ${reply.status} ${await reply.text()}`);
}
