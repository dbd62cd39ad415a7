import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { checkShares } from '@sandbox/evaluation-report';
import { EVAL_RESPONDER, waitForReady } from '@sandbox/sandbox-local';
import { bundleNodeApp } from '@sandbox/sandbox-local/testing';
import { monotonicClock } from '@sandbox/service-kit';
import type { Plan } from '../../src/plan/plan';

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 1/100 s). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The responder's native hash rate: per wall-clock second here, and per CPU second it used. */
export interface NativeHashRate {
  wallHashesPerSecond: number;
  /** Its single-core rate whatever share of a core it got: the hashes over its own CPU time. */
  cpuHashesPerSecond: number;
}

/**
 * The responder's own hash rate on one core outside the sandbox: the same bundle run natively (one
 * thread of JavaScript), asked directly (no Node) on a free loopback `port`; every share is checked.
 */
export async function nativeHashRate(dir: string, plan: Plan, port: number): Promise<NativeHashRate> {
  const file = join(dir, 'responder.mjs');
  await writeFile(file, await bundleNodeApp(EVAL_RESPONDER.entryFile));
  const child = spawn(process.execPath, [file], {
    env: { PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  try {
    await waitForReady(
      { address: '127.0.0.1', port },
      { type: 'http', path: '/healthz', expectedStatus: 200 },
      { clock: monotonicClock },
    );
    const seed = randomBytes(32);
    const pid = child.pid ?? 0;
    const cpuBefore = await cpuSeconds(pid);
    const started = performance.now();
    const reply = await fetch(`http://127.0.0.1:${port}/v1/hash`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'livepeer-session-id': 'native-calibration' },
      body: JSON.stringify({
        seed: seed.toString('hex'),
        difficultyBits: plan.hashDifficultyBits,
        shares: plan.hashShares,
      }),
    });
    const { counters } = (await reply.json()) as { counters: number[] };
    const seconds = (performance.now() - started) / 1000;
    const cpu = (await cpuSeconds(pid)) - cpuBefore;
    const check = checkShares(seed, 'native-calibration', plan.hashDifficultyBits, counters);
    if (check.valid !== plan.hashShares) throw new Error('the native responder returned invalid shares');
    const hashes = check.valid * 2 ** plan.hashDifficultyBits;
    return { wallHashesPerSecond: hashes / seconds, cpuHashesPerSecond: hashes / cpu };
  } finally {
    child.kill('SIGTERM');
  }
}
