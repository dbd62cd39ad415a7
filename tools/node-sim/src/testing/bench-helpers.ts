import type { Agent } from 'node:http';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimProcess } from './sim-process';
import { spawnSim } from './sim-process';

/** A keep-alive HTTP call returning status and body, for benchmarks. */
export function httpCall(
  agent: Agent,
  url: string,
  method = 'GET',
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The simulator as a separate process on free loopback ports, with a throwaway bootstrap secret. */
export async function spawnBenchSim(
  secret: string,
  extra: string[] = [],
): Promise<{ sim: SimProcess; publicUrl: string; cleanup(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'node-sim-bench-'));
  writeFileSync(join(dir, 'secret'), secret);
  const sim = spawnSim([
    '--listen',
    '127.0.0.1:0',
    '--metrics-listen',
    '127.0.0.1:0',
    '--bootstrap-secret-file',
    join(dir, 'secret'),
    '--log-level',
    'warn',
    ...extra,
  ]);
  const { publicUrl } = await sim.ready().catch(async () => {
    await sim.stop('SIGKILL');
    throw new Error(`simulator did not start: ${sim.stderr()}`);
  });
  return {
    sim,
    publicUrl,
    cleanup: async () => {
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
