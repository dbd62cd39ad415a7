// The embedded stack as `npm start` runs it: every member comes up on its own ports, the dashboard
// answers, and SIGINT (Ctrl-C) stops every member, leaving no process behind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findFreePort, waitFor } from '@sandbox/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
let stack: ChildProcess;
let output = '';
let dataDir: string;
const PORT_VARIABLES = [
  'DASHBOARD_PORT',
  'INSTANCE_MANAGER_PORT',
  'ADAPTER_PORT',
  'DRAIN_CONTROLLER_PORT',
  'REDEMPTION_HANDOFF_PORT',
  'VERIFIER_PORT',
  'REDEEMER_SIM_PORT',
  'REDIS_PORT',
  'NODE_SIM_PORT',
  'NODE_SIM_METRICS_PORT',
] as const;
let env: Record<(typeof PORT_VARIABLES)[number], string>;
let ports: { dashboard: number; redis: number; nodeSim: number; nodeSimMetrics: number };

const refusesConnections = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.on('error', () => done(true));
  });

const exited = () => new Promise<number | null>((done) => stack.once('exit', (code) => done(code)));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stack-e2e-'));
  // Every member on a free port, so the test never meets a stack a developer is running.
  const free: [string, string][] = [];
  for (const name of PORT_VARIABLES) free.push([name, String(await findFreePort())]);
  env = Object.fromEntries(free) as typeof env;
  ports = {
    dashboard: Number(env.DASHBOARD_PORT),
    redis: Number(env.REDIS_PORT),
    nodeSim: Number(env.NODE_SIM_PORT),
    nodeSimMetrics: Number(env.NODE_SIM_METRICS_PORT),
  };
  stack = spawn(process.execPath, ['--import', 'tsx', 'tools/stack/src/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...env,
      // Paid mode wires the winning-ticket path: node-sim outbox → redemption-handoff → redeemer-sim.
      NODE_SIM_PAID: 'true',
      STACK_DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stack.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  stack.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('all members are ready'), {
    timeoutMs: 60_000,
    description: 'stack ready',
  });
});

afterAll(async () => {
  if (stack.exitCode === null) stack.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start (tools/stack)', () => {
  it('prints each member with its URL and prefixes their logs', () => {
    expect(output).toContain(`redis ready at redis://127.0.0.1:${ports.redis}`);
    expect(output).toContain(`node-sim ready at http://127.0.0.1:${ports.nodeSim}/`);
    expect(output).toContain(`redeemer-sim ready at http://127.0.0.1:${env.REDEEMER_SIM_PORT}/`);
    expect(output).toContain(`redemption-handoff ready at http://127.0.0.1:${env.REDEMPTION_HANDOFF_PORT}/`);
    if (process.getuid?.() === 0) {
      expect(output).toContain(`instance-manager ready at http://127.0.0.1:${env.INSTANCE_MANAGER_PORT}/`);
    }
    expect(output).toContain(`dashboard ready at http://127.0.0.1:${ports.dashboard}/`);
    expect(output).toMatch(/^dashboard\s+\| \{/m);
  });

  it('runs the Node simulator with a generated bootstrap secret', async () => {
    const secretFile = join(dataDir, 'node-sim', 'bootstrap-secret');
    expect(output).toContain(secretFile);
    expect((await readFile(secretFile)).length).toBeGreaterThanOrEqual(32);
    const discovery = await fetch(`http://127.0.0.1:${ports.nodeSim}/discovery`);
    expect(discovery.status).toBe(200);
  });

  it('serves the dashboard over every protocol queue', async () => {
    const response = await fetch(`http://127.0.0.1:${ports.dashboard}/queues/api/queues`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { queues: { name: string }[] };
    expect(body.queues.map((queue) => queue.name)).toEqual(
      expect.arrayContaining(['instance-events', 'ticket-delivery']),
    );
  });

  it('stops every member on SIGINT and exits 0', async () => {
    const done = exited();
    stack.kill('SIGINT');
    expect(await done).toBe(0);
    expect(output).toContain('stack             | stopped');
    expect(output).not.toContain('did not stop within');
    expect(output).toContain('"msg":"shutdown complete"');
    await expect(fetch(`http://127.0.0.1:${ports.dashboard}/healthz`)).rejects.toThrow();
    for (const port of Object.values(ports)) expect(await refusesConnections(port)).toBe(true);
  });
});
