// Accuracy of the verifier against ground truth. The responder runs as a gVisor instance of the local
// driver, is reached through the Node simulator in paid mode, and is measured with the default plan:
// once unshaped, then with a known delay, then at known rates, on the instance's veth.
// - Latency: the verifier's latency step in a paid session (probes paced 50 ms apart, so shaped and
//   unshaped probes both start from an idle path), unshaped and then with 20 ms added on the way out
//   of the sandbox, back to back, three rounds (errors of the mean median and of the mean min): by
//   netem when the kernel has sch_netem, else by the delay line (apps/verifier/bench/delay-line,
//   NFQUEUE), which holds every packet leaving the sandbox 20 ms at the host end of the veth. The
//   bench says which one it used, and compares against the delay the delay line really applied (20 ms
//   plus its median lateness, verdict syscall included, in µs), printing the nominal error too.
// - Throughput: netem's or tbf's rate both ways. Both count whole frames while the verifier counts
//   payload bytes at the receiver after the warm-up, so the honest truth is the link's goodput (rate ×
//   payload per frame, accuracy/goodput.ts); the error against the raw rate is printed as well.
// - Hash rate: against the same bundle run natively (outside the sandbox, no Node), before and after
//   the measured run: its hashes per CPU second (its single-core rate, whatever share of a core a busy
//   host left it) and, for comparison, per wall-clock second.
// Root. Run: npm run bench -- accuracy
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLocalDriver, ensureEvalResponderImage } from '@sandbox/sandbox-local';
import { newInstanceId } from '@sandbox/protocol';
import { findFreePort, printFigure as figure } from '@sandbox/testing';
import { pino } from 'pino';
import { registerRunner, startPaidNodeSim } from '../../src/__fixtures__/processes';
import { errorPercent, expectedGoodput } from './goodput';
import { containerCpuSeconds, cpuPressurePercent, stepInSession } from './step-in-session';
import { measureHashRate } from '../../src/plan/hash.step';
import { measureLatency } from '../../src/plan/latency.step';
import { DELAY_MS, delayedLatency, LATENCY_ROUNDS, type Latency } from './latency-ground-truth';
import { clearShaping, hasNetem, instanceLink, linkMtu, shapeRate, type InstanceLink } from './link-shaping';
import { nativeHashRate } from './native-hash-rate';
import { createSignerClient } from '../../src/node/signer-client';
import type { Plan } from '../../src/plan/plan';
import { runEvaluation } from '../../src/run/run-session';
import type { RunRecord } from '../../src/run/run-record';

const PREFIX = 'vab';
const BOOTSTRAP = 'accuracy-bench-bootstrap-secret';
const RATES_MBIT = [50, 200];
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
/** A comment line: how the figures were obtained (`npm run bench` shows it, never as a figure). */
const note = (text: string) => void process.stdout.write(`# ${text}\n`);
type Evaluate = (label: string) => Promise<RunRecord>;
/** The hash step alone, with the sandbox's hashes per wall-clock second and per CPU second it used. */
type SandboxHash = () => Promise<{ wall: number; cpu: number | undefined }>;

const medianRtt = (record: RunRecord) => record.results.latency?.medianMs ?? Number.NaN;

/** Both directions at one rate; returns the goodput errors (download, upload). */
async function rateRun(link: InstanceLink, rate: number, netem: boolean, mtu: number, evaluate: Evaluate) {
  await shapeRate(link, rate, netem ? { delayMs: 0 } : undefined);
  const shaped = await evaluate(`rate-${rate}`).finally(() => clearShaping(link));
  const goodput = expectedGoodput(rate, mtu).goodputMbit;
  const errors: number[] = [];
  for (const direction of ['download', 'upload'] as const) {
    const mbps = shaped.results[direction]?.megabitsPerSecond ?? Number.NaN;
    figure(`verifier_${direction}_${rate}mbit_mbit_per_s`, mbps, 1);
    figure(`verifier_${direction}_${rate}mbit_rate_error_percent`, errorPercent(mbps, rate), 1);
    figure(`verifier_${direction}_${rate}mbit_goodput_error_percent`, errorPercent(mbps, goodput), 1);
    errors.push(errorPercent(mbps, goodput));
  }
  return errors;
}

const worst = (values: number[]) => values.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a), 0);

async function hashRate(dir: string, evaluate: Evaluate, sandboxHash: SandboxHash) {
  const before = await nativeHashRate(dir, PLAN, await findFreePort());
  const base = await evaluate('baseline');
  const after = await nativeHashRate(dir, PLAN, await findFreePort());
  const measured = base.results.hashRate?.hashesPerSecond ?? Number.NaN;
  const perCpu = (before.cpuHashesPerSecond + after.cpuHashesPerSecond) / 2;
  const wall = (before.wallHashesPerSecond + after.wallHashesPerSecond) / 2;
  note("hash truth: the native responder's hashes per CPU second it used (its single-core rate)");
  figure('verifier_hash_rate_native_cpu_hashes_per_s', perCpu, 2 * PLAN.hashShares);
  figure('verifier_hash_rate_native_wall_hashes_per_s', wall, 2 * PLAN.hashShares);
  figure('verifier_hash_rate_through_node_hashes_per_s', measured, PLAN.hashShares);
  figure('verifier_hash_rate_error_percent', errorPercent(measured, perCpu), PLAN.hashShares);
  figure('verifier_hash_rate_wall_error_percent', errorPercent(measured, wall), PLAN.hashShares);
  // Where the gap comes from: the sandbox's own hashes per CPU second (gVisor's cost) against the share
  // of a core it got (contention).
  const sandbox = await sandboxHash().catch((error: unknown) => {
    note(`the sandbox-only hash step failed: ${String(error)}`);
    return undefined;
  });
  if (sandbox?.cpu === undefined) note('no sandbox CPU-time figures');
  else {
    figure('verifier_hash_rate_sandbox_cpu_hashes_per_s', sandbox.cpu, PLAN.hashShares);
    figure('verifier_hash_rate_sandbox_overhead_percent', errorPercent(sandbox.cpu, perCpu), PLAN.hashShares);
    figure('verifier_hash_rate_sandbox_core_share_ratio', sandbox.wall / sandbox.cpu, PLAN.hashShares);
  }
  return base;
}

async function bench(
  link: InstanceLink,
  dir: string,
  evaluate: Evaluate,
  steps: { latency: Latency; sandboxHash: SandboxHash },
) {
  figure('verifier_host_cpu_pressure_start_percent', await cpuPressurePercent(), 1);
  const netem = await hasNetem(link);
  const mtu = await linkMtu(link);
  const shaper = netem ? 'netem' : 'tbf';
  const { ratio, payloadBytes, frameBytes } = expectedGoodput(1, mtu);
  note(`rates shaped with ${shaper} on both ends of the veth (mtu ${mtu}); ${shaper} counts frames`);
  note(
    `goodput truth = rate × ${payloadBytes}/${frameBytes} payload bytes per frame = rate × ${ratio.toFixed(4)}`,
  );
  figure('verifier_goodput_per_rate_ratio', ratio, 1);

  const base = await hashRate(dir, evaluate, steps.sandboxHash);
  figure('verifier_rtt_full_run_median_ms', medianRtt(base), PLAN.latencyProbes);
  figure('verifier_download_unshaped_mbit_per_s', base.results.download?.megabitsPerSecond ?? Number.NaN, 1);
  figure('verifier_upload_unshaped_mbit_per_s', base.results.upload?.megabitsPerSecond ?? Number.NaN, 1);

  const rtt = await delayedLatency(link, netem, dir, steps.latency);
  if (rtt.delayLine) {
    const { packets, ...us } = rtt.delayLine;
    figure('verifier_delay_line_late_mean_us', us.meanLateUs, packets);
    figure('verifier_delay_line_late_median_us', us.medianLateUs, packets);
    figure('verifier_delay_line_late_max_us', us.maxLateUs, packets);
    figure('verifier_delay_line_verdict_median_us', us.medianVerdictUs, packets);
    figure('verifier_delay_line_read_lag_median_us', us.medianReadLagUs, packets);
  }
  const samples = LATENCY_ROUNDS * PLAN.latencyProbes;
  figure('verifier_rtt_baseline_median_ms', rtt.baseMs, samples);
  figure('verifier_rtt_delayed_median_ms', rtt.delayedMs, samples);
  figure('verifier_rtt_error_ms', rtt.addedMedianMs - rtt.appliedMs, samples);
  figure('verifier_rtt_nominal_error_ms', rtt.addedMedianMs - DELAY_MS, samples);
  figure('verifier_rtt_min_error_ms', rtt.addedMinMs - rtt.appliedMs, samples);

  const errors = [];
  for (const rate of RATES_MBIT) errors.push(await rateRun(link, rate, netem, mtu, evaluate));
  figure(
    'verifier_download_error_percent',
    worst(errors.map(([download]) => download ?? 0)),
    RATES_MBIT.length,
  );
  figure('verifier_upload_error_percent', worst(errors.map(([, upload]) => upload ?? 0)), RATES_MBIT.length);
  figure('verifier_host_cpu_pressure_end_percent', await cpuPressurePercent(), 1);
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
  const nodeUrl = node.url;
  await registerRunner(nodeUrl, BOOTSTRAP, { runnerId: 'bench-1', app: 'eval-responder', url: instance.url });
  const signer = createSignerClient({ url: nodeUrl, credential: 'bench', timeoutMs: 10_000 });
  const evaluate: Evaluate = async (label) => {
    const record = await runEvaluation(
      {
        evaluationId: `bench-${label}`,
        target: { app: 'eval-responder', runnerId: 'bench-1' },
        requestedAt: new Date().toISOString(),
        trigger: 'on-demand',
      },
      {
        nodeUrl,
        plan: PLAN,
        requestTimeoutMs: 10_000,
        paymentIntervalMs: 3_000,
        signer,
        logger,
        wallNow: Date.now,
        monoNow: () => performance.now(),
      },
    );
    if (record.fault)
      throw new Error(`${label} run failed: ${record.fault.attribution} ${record.fault.reasonCode}`);
    return record;
  };
  const target = { app: 'eval-responder', runnerId: 'bench-1' };
  const stepDeps = { nodeUrl, signer, plan: PLAN, logger };
  const latency: Latency = () => stepInSession(target, stepDeps, measureLatency);
  const sandboxHash: SandboxHash = async () => {
    const container = `${PREFIX}-${instanceId}`;
    const before = await containerCpuSeconds(container);
    const result = await stepInSession(target, stepDeps, (context) =>
      measureHashRate(context, PLAN.runTimeoutMs),
    );
    const after = await containerCpuSeconds(container);
    const hashes = result.shares * 2 ** result.difficultyBits;
    return {
      wall: result.hashesPerSecond,
      cpu: before === undefined || after === undefined ? undefined : hashes / (after - before),
    };
  };
  await bench(instanceLink(PREFIX, instanceId), dir, evaluate, { latency, sandboxHash });
} finally {
  await node?.stop();
  await driver.stop(instanceId);
  await rm(dir, { recursive: true, force: true });
}
