// Added latency of the simulator's session proxy on loopback: the same small request sent straight to
// the runner and through `/apps/{rid}/session/{sid}/app/...`, sequentially over keep-alive connections.
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { percentile, printFigure } from '@sandbox/testing';
import { httpCall, spawnBenchSim } from './testing/bench-helpers';

const SECRET = 'bench-secret';
const WARMUP = 300;
const SAMPLES = 3_000;

async function measure(agent: Agent, url: string): Promise<number[]> {
  for (let i = 0; i < WARMUP; i += 1) await httpCall(agent, url);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const started = process.hrtime.bigint();
    const reply = await httpCall(agent, url);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (reply.status !== 200) throw new Error(`unexpected status ${reply.status}`);
  }
  return samples;
}

async function main(): Promise<void> {
  const app = createServer((_req, res) => res.end('{"ok":true}'));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const { port } = app.address() as AddressInfo;
  const { publicUrl, cleanup } = await spawnBenchSim(SECRET, ['--runner-grant', `127.0.0.1:${port}`]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const body = JSON.stringify({ runner_id: 'bench', runner_url: `http://127.0.0.1:${port}`, app: 'bench' });
    await httpCall(agent, `${publicUrl}/runners/heartbeat`, 'POST', { Authorization: SECRET }, body);
    const session = JSON.parse((await httpCall(agent, `${publicUrl}/apps/bench/session`, 'POST')).body) as {
      app_url: string;
    };
    const direct = await measure(agent, `http://127.0.0.1:${port}/ping`);
    const proxied = await measure(agent, `${session.app_url}/ping`);
    printFigure('node_sim_direct_latency_p50_ms', percentile(direct, 50), SAMPLES);
    printFigure('node_sim_proxied_latency_p50_ms', percentile(proxied, 50), SAMPLES);
    printFigure(
      'node_sim_proxy_added_latency_p50_ms',
      percentile(proxied, 50) - percentile(direct, 50),
      SAMPLES,
    );
    printFigure(
      'node_sim_proxy_added_latency_p99_ms',
      percentile(proxied, 99) - percentile(direct, 99),
      SAMPLES,
    );
  } finally {
    agent.destroy();
    await cleanup();
    app.close();
  }
}

await main();
