// 256 runners (Node's limit) registering at once and then heartbeating at once, round after round,
// against the simulator in its own process.
import { Agent } from 'node:http';
import { percentile, printFigure } from '@sandbox/testing';
import { httpCall, spawnBenchSim } from './testing/bench-helpers';

const SECRET = 'bench-secret';
const RUNNERS = 256;
const ROUNDS = 40;

const body = (i: number): string =>
  JSON.stringify({
    runner_id: `bench-${i}`,
    runner_url: `http://10.0.${i >> 8}.${i & 255}:8080`,
    app: 'bench',
    capacity: 4,
  });

async function main(): Promise<void> {
  const { publicUrl, cleanup } = await spawnBenchSim(SECRET);
  const agent = new Agent({ keepAlive: true, maxSockets: RUNNERS });
  try {
    const started = process.hrtime.bigint();
    const registrations = await Promise.all(
      Array.from({ length: RUNNERS }, (_, i) =>
        httpCall(agent, `${publicUrl}/runners/heartbeat`, 'POST', { Authorization: SECRET }, body(i)),
      ),
    );
    printFigure(
      'node_sim_register_256_concurrent_ms',
      Number(process.hrtime.bigint() - started) / 1e6,
      RUNNERS,
    );
    const secrets = registrations.map((reply) => {
      if (reply.status !== 200) throw new Error(`registration failed: ${reply.status} ${reply.body}`);
      return (JSON.parse(reply.body) as { heartbeat_secret: string }).heartbeat_secret;
    });
    const rounds: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const start = process.hrtime.bigint();
      const replies = await Promise.all(
        secrets.map((secret, i) =>
          httpCall(agent, `${publicUrl}/runners/heartbeat`, 'POST', { Authorization: secret }, body(i)),
        ),
      );
      rounds.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (replies.some((reply) => reply.status !== 200)) throw new Error('a heartbeat failed');
    }
    printFigure('node_sim_heartbeat_256_round_p50_ms', percentile(rounds, 50), ROUNDS);
    printFigure('node_sim_heartbeat_256_round_p99_ms', percentile(rounds, 99), ROUNDS);
    printFigure('node_sim_heartbeat_256_heartbeats_per_s', (RUNNERS * 1000) / percentile(rounds, 50), ROUNDS);
  } finally {
    agent.destroy();
    await cleanup();
  }
}

await main();
