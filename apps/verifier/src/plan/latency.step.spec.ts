import { once } from 'node:events';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from '@jest/globals';
import { findFreePort } from '@sandbox/testing';
import { ReliabilityCounter } from '../run/reliability';
import { measureLatency, PROBE_GAP_MS } from './latency.step';
import type { StepContext } from './plan';

const seen: number[] = [];
const server = createServer((req, res) => {
  seen.push(performance.now());
  res.writeHead(req.url === '/v1/echo' ? 204 : 404).end();
});

afterEach(async () => {
  seen.length = 0;
  if (server.listening) await new Promise((resolve) => server.close(resolve));
});

async function context(probes: number, latencyGapMs?: number): Promise<StepContext> {
  const port = await findFreePort();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    appUrl: `http://127.0.0.1:${port}`,
    sessionId: 'latency-spec',
    seed: new Uint8Array(32),
    plan: {
      latencyProbes: probes,
      ...(latencyGapMs === undefined ? {} : { latencyGapMs }),
      transferSeconds: 1,
      warmupSeconds: 0,
      maxTransferBytes: 1,
      hashShares: 1,
      hashDifficultyBits: 1,
      runTimeoutMs: 10_000,
    },
    reliability: new ReliabilityCounter(),
    runSignal: new AbortController().signal,
    requestTimeoutMs: 5_000,
    now: () => performance.now(),
  };
}

describe('the latency step', () => {
  it('sends one untimed warm-up and then each probe a full gap after the previous answer', async () => {
    const result = await measureLatency(await context(3));
    expect(result.samples).toBe(3);
    expect(seen).toHaveLength(4);
    // Node's timers may fire up to a millisecond before their due time.
    for (let index = 1; index < seen.length; index += 1)
      expect((seen[index] ?? 0) - (seen[index - 1] ?? 0)).toBeGreaterThanOrEqual(PROBE_GAP_MS - 1);
  });

  it("waits the plan's gap when the plan sets one", async () => {
    const result = await measureLatency(await context(2, 120));
    expect(result.samples).toBe(2);
    for (let index = 1; index < seen.length; index += 1)
      expect((seen[index] ?? 0) - (seen[index - 1] ?? 0)).toBeGreaterThanOrEqual(119);
  });
});
