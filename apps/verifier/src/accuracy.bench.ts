// Accuracy of the verifier against ground truth. The responder runs as a gVisor instance of the local
// driver, is reached through the Node simulator in paid mode, and is measured with the default plan:
// once unshaped, then shaped with tc in the instance's network namespace (netem: delay 20 ms on the way
// out of the sandbox and rate 50 or 200 mbit both ways, the host end of the veth shaping the way in).
// A kernel without sch_netem gets the rates from tbf and no added delay, and the bench says so. It
// prints the RTT error against the added delay, the throughput errors against the rate, and the
// hash-rate error against the same bundle run natively (outside the sandbox, no Node) on one core.
// Root. Run:
//   node --import tsx apps/verifier/src/accuracy.bench.ts
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { checkShares } from '@sandbox/evaluation-report';
import {
  bundleNodeApp,
  createLocalDriver,
  ensureEvalResponderImage,
  EVAL_RESPONDER,
  newInstanceId,
  runCommand,
  systemClock,
  waitForReady,
} from '@sandbox/sandbox-local';
import { findFreePort } from '@sandbox/testing';
import { pino } from 'pino';
import { registerRunner, startPaidNodeSim } from './__fixtures__/processes';
import { createSignerClient } from './node/signer-client';
import type { Plan } from './plan/plan';
import { runEvaluation } from './run/run-session';
import type { RunRecord } from './run/run-record';

const PREFIX = 'vab';
const BOOTSTRAP = 'accuracy-bench-bootstrap-secret';
const DELAY_MS = 20;
const PLAN: Plan = {
  latencyProbes: 20,
  transferSeconds: 10,
  warmupSeconds: 2,
  maxTransferBytes: 4 * 1024 ** 3,
  hashShares: 400,
  hashDifficultyBits: 13,
  runTimeoutMs: 180_000,
};
const logger = pino({ level: 'silent' });
const figure = (name: string, value: number, unit: string) =>
  process.stdout.write(`${name}: ${value.toFixed(unit === '%' ? 2 : unit === 'ms' ? 3 : 0)} ${unit}\n`);

async function tc(args: string[], netns?: string) {
  return runCommand(netns ? 'ip' : 'tc', netns ? ['netns', 'exec', netns, 'tc', ...args] : args, {
    allowFailure: true,
  });
}

/**
 * Shapes both ends of the instance's veth (names as the local driver gives them): netem when the kernel
 * has it, else tbf (rate only). Resolves whether the delay was added.
 */
async function shape(instanceId: string, rateMbit: number | undefined): Promise<boolean> {
  const netns = `${PREFIX}-${instanceId}`;
  const inside = `${PREFIX}c${instanceId}`;
  const host = `${PREFIX}h${instanceId}`;
  if (rateMbit === undefined) {
    await tc(['qdisc', 'del', 'dev', inside, 'root'], netns);
    await tc(['qdisc', 'del', 'dev', host, 'root']);
    return false;
  }
  const rate = ['rate', `${rateMbit}mbit`, 'limit', '10000'];
  const netem = await tc(
    ['qdisc', 'replace', 'dev', inside, 'root', 'netem', 'delay', `${DELAY_MS}ms`, ...rate],
    netns,
  );
  const tbf = [
    'tbf',
    'rate',
    `${rateMbit}mbit`,
    'burst',
    `${Math.max(32, rateMbit / 2)}kb`,
    'latency',
    '100ms',
  ];
  const results =
    netem.exitCode === 0
      ? [await tc(['qdisc', 'replace', 'dev', host, 'root', 'netem', ...rate])]
      : [
          await tc(['qdisc', 'replace', 'dev', inside, 'root', ...tbf], netns),
          await tc(['qdisc', 'replace', 'dev', host, 'root', ...tbf]),
        ];
  const failed = results.find((result) => result.exitCode !== 0);
  if (failed) throw new Error(`tc failed: ${failed.stderr.trim()}`);
  return netem.exitCode === 0;
}

/**
 * The responder's own hash rate on one core outside the sandbox: the same bundle run natively, asked
 * directly (no Node), timed here; every share is checked.
 */
async function nativeHashRate(dir: string): Promise<number> {
  const file = join(dir, 'responder.mjs');
  await writeFile(file, await bundleNodeApp(EVAL_RESPONDER.entryFile));
  const port = await findFreePort();
  const child = spawn(process.execPath, [file], {
    env: { PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  try {
    await waitForReady(
      { address: '127.0.0.1', port },
      { type: 'http', path: '/healthz', expectedStatus: 200 },
      { clock: systemClock },
    );
    const seed = randomBytes(32);
    const started = performance.now();
    const reply = await fetch(`http://127.0.0.1:${port}/v1/hash`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'livepeer-session-id': 'native-calibration' },
      body: JSON.stringify({
        seed: seed.toString('hex'),
        difficultyBits: PLAN.hashDifficultyBits,
        shares: PLAN.hashShares,
      }),
    });
    const { counters } = (await reply.json()) as { counters: number[] };
    const seconds = (performance.now() - started) / 1000;
    const check = checkShares(seed, 'native-calibration', PLAN.hashDifficultyBits, counters);
    if (check.valid !== PLAN.hashShares) throw new Error('the native responder returned invalid shares');
    return (check.valid * 2 ** PLAN.hashDifficultyBits) / seconds;
  } finally {
    child.kill('SIGTERM');
  }
}

function expectPass(record: RunRecord, label: string): RunRecord {
  if (record.fault)
    throw new Error(`${label} run failed: ${record.fault.attribution} ${record.fault.reasonCode}`);
  return record;
}

const dir = await mkdtemp(join(tmpdir(), 'verifier-bench-'));
await writeFile(join(dir, 'bootstrap'), BOOTSTRAP);
const driver = createLocalDriver({ logger, prefix: PREFIX, subnet: '10.232.4.0/24' });
const instanceId = newInstanceId();
let node: Awaited<ReturnType<typeof startPaidNodeSim>> | undefined;
try {
  const image = await ensureEvalResponderImage();
  const instance = await driver.start({
    instanceId,
    image,
    port: 8080,
    resources: { cpus: 1, memoryMb: 256 },
  });
  await driver.waitForReady(
    instance,
    { type: 'http', path: '/healthz', expectedStatus: 200 },
    { timeoutMs: 60_000 },
  );
  node = await startPaidNodeSim({
    port: await findFreePort(),
    metricsPort: await findFreePort(),
    bootstrapFile: join(dir, 'bootstrap'),
    grants: [`${instance.address}:${instance.port}`],
  });
  await registerRunner(node.url, BOOTSTRAP, {
    runnerId: 'bench-1',
    app: 'eval-responder',
    url: instance.url,
  });
  const signer = createSignerClient({ url: node.url, credential: 'bench', timeoutMs: 10_000 });
  const evaluate = async (label: string) =>
    expectPass(
      await runEvaluation(
        {
          evaluationId: `bench-${label}`,
          target: { app: 'eval-responder', runnerId: 'bench-1' },
          requestedAt: new Date().toISOString(),
          trigger: 'on-demand',
        },
        {
          nodeUrl: node?.url ?? '',
          plan: PLAN,
          requestTimeoutMs: 10_000,
          paymentIntervalMs: 3_000,
          signer,
          logger,
          wallNow: Date.now,
          monoNow: () => performance.now(),
        },
      ),
      label,
    );

  const base = await evaluate('baseline');
  const baseRtt = base.results.latency?.medianMs ?? Number.NaN;
  figure('baseline_rtt_median', baseRtt, 'ms');
  figure('baseline_download', base.results.download?.megabitsPerSecond ?? Number.NaN, 'Mbit/s');
  figure('baseline_upload', base.results.upload?.megabitsPerSecond ?? Number.NaN, 'Mbit/s');
  const native = await nativeHashRate(dir);
  const measured = base.results.hashRate?.hashesPerSecond ?? Number.NaN;
  figure('hash_rate_native_single_core', native, 'H/s');
  figure('hash_rate_through_node', measured, 'H/s');
  figure('hash_rate_error', ((measured - native) / native) * 100, '%');

  for (const rate of [50, 200]) {
    const delayed = await shape(instanceId, rate);
    const shaped = await evaluate(`shaped-${rate}`);
    await shape(instanceId, undefined);
    const rtt = shaped.results.latency?.medianMs ?? Number.NaN;
    figure(`shaped_${rate}mbit_rtt_median`, rtt, 'ms');
    if (delayed) figure(`netem_${rate}mbit_rtt_error`, rtt - baseRtt - DELAY_MS, 'ms');
    else
      process.stdout.write(`# no sch_netem in this kernel: ${rate} mbit shaped with tbf, no delay added\n`);
    for (const direction of ['download', 'upload'] as const) {
      const mbps = shaped.results[direction]?.megabitsPerSecond ?? Number.NaN;
      figure(`shaped_${rate}mbit_${direction}`, mbps, 'Mbit/s');
      figure(`shaped_${rate}mbit_${direction}_error`, ((mbps - rate) / rate) * 100, '%');
    }
  }
} finally {
  await node?.stop();
  await driver.stop(instanceId);
  await rm(dir, { recursive: true, force: true });
}
