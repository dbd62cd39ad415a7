// The embedded stack as `npm start` runs it: every member comes up on its own ports, the dashboard
// answers, and SIGINT (Ctrl-C) stops every member, leaving no process behind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  alertQueries,
  dashboardQueries,
  exposedMetricNames,
  queriesReadingMissingMetrics,
} from '@sandbox/kube-harness';
import { asRoot, itRequiring, startStack, type StackProcess } from '@sandbox/testing';
import { refusesConnections } from './port-probe';

let stack: StackProcess;
const isRoot = process.getuid?.() === 0;

beforeAll(async () => {
  // Paid mode wires the winning-ticket path: node-sim outbox → redemption-handoff → redeemer-sim.
  stack = await startStack({
    env: {
      NODE_SIM_PAID: 'true',
      INSTANCE_PREFIX: 'est',
      INSTANCE_SUBNET: '10.218.0.0/24',
    },
    readyTimeoutMs: 120_000,
  });
});

afterAll(async () => {
  await stack.cleanup();
});

describe('npm start (tools/stack)', () => {
  it('prints each member with its URL and prefixes their logs', () => {
    const { ports } = stack;
    const output = stack.output();
    expect(output).toContain(`redis ready at redis://127.0.0.1:${ports.REDIS_PORT}`);
    expect(output).toContain(`redeemer-sim ready at http://127.0.0.1:${ports.REDEEMER_SIM_PORT}/`);
    expect(output).toContain(
      `redemption-handoff ready at http://127.0.0.1:${ports.REDEMPTION_HANDOFF_PORT}/`,
    );
    expect(output).toContain(`node-sim ready at http://127.0.0.1:${ports.NODE_SIM_PORT}/`);
    if (isRoot)
      expect(output).toContain(`instance-manager ready at http://127.0.0.1:${ports.INSTANCE_MANAGER_PORT}/`);
    expect(output).toContain(`adapter ready at http://127.0.0.1:${ports.ADAPTER_PORT}/`);
    expect(output).toContain(`dashboard ready at http://127.0.0.1:${ports.DASHBOARD_PORT}/`);
    expect(output).toMatch(/^dashboard\s+\| \{/m);
  });

  it('runs the Node simulator with a generated bootstrap secret', async () => {
    const secretFile = join(stack.dataDir, 'node-sim', 'bootstrap-secret');
    expect(stack.output()).toContain(secretFile);
    const secret = await readFile(secretFile);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(stack.output()).not.toContain(secret.toString());
    expect((await fetch(`http://127.0.0.1:${stack.ports.NODE_SIM_PORT}/discovery`)).status).toBe(200);
  });

  it('serves the dashboard over every protocol queue', async () => {
    const board = `http://127.0.0.1:${stack.ports.DASHBOARD_PORT}/queues/api/queues`;
    expect((await fetch(board)).status).toBe(401);
    const response = await fetch(board, { headers: await stack.headers('read') });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { queues: { name: string }[] };
    expect(body.queues.map((queue) => queue.name)).toEqual(
      expect.arrayContaining(['instance-events', 'ticket-delivery']),
    );
  });

  it('generates the management tokens, prints their paths and guards every API with them', async () => {
    const tokenFile = join(stack.dataDir, 'secrets', 'admin-token');
    expect(stack.output()).toContain(tokenFile);
    const token = await readFile(tokenFile, 'utf8');
    expect(stack.output()).not.toContain(token);
    const { ports } = stack;
    const reads = [
      [ports.ADAPTER_PORT, '/v1/runners'],
      [ports.REDEMPTION_HANDOFF_PORT, '/v1/liabilities'],
      ...(isRoot ? [[ports.INSTANCE_MANAGER_PORT, '/v1/apps']] : []),
    ] as const;
    for (const [port, path] of reads) {
      expect((await fetch(`http://127.0.0.1:${port}${path}`)).status).toBe(401);
      const read = await fetch(`http://127.0.0.1:${port}${path}`, { headers: await stack.headers('read') });
      expect(read.status).toBe(200);
    }
  });

  it('runs Redis with a generated password no one else knows', async () => {
    const password = await readFile(join(stack.dataDir, 'secrets', 'redis-password'), 'utf8');
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(stack.output()).not.toContain(password);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: stack.ports.REDIS_PORT });
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (data) => {
        socket.destroy();
        resolve(data.toString());
      });
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^-NOAUTH/);
  });

  // Every service that owns metrics (instance-manager needs root for its local driver).
  itRequiring(asRoot)('exposes every metric the Grafana dashboard and the alert rules read', async () => {
    const { ports } = stack;
    const exposed = new Set<string>();
    for (const port of [
      ports.INSTANCE_MANAGER_PORT,
      ports.ADAPTER_PORT,
      ports.DRAIN_CONTROLLER_PORT,
      ports.REDEMPTION_HANDOFF_PORT,
      ports.VERIFIER_PORT,
    ]) {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      for (const name of exposedMetricNames(await response.text())) exposed.add(name);
    }
    expect(queriesReadingMissingMetrics([...dashboardQueries(), ...alertQueries()], exposed)).toEqual([]);
  });

  it('stops every member on SIGINT and exits 0', async () => {
    expect(await stack.stop('SIGINT')).toBe(0);
    const output = stack.output();
    expect(output).toContain('stack             | stopped');
    expect(output).not.toContain('did not stop within');
    expect(output).toContain('"msg":"shutdown complete"');
    for (const port of Object.values(stack.ports)) expect(await refusesConnections(port)).toBe(true);
  });
});
