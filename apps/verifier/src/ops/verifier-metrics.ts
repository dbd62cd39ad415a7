import type { EvaluationReport } from '@sandbox/protocol';
import { Counter, Gauge, type Registry } from 'prom-client';

/** Per app and runner only: session ids never become labels (unbounded and correlating). */
export interface VerifierMetrics {
  report(report: EvaluationReport): void;
  attempt(app: string, runnerId: string, status: string, attribution: string): void;
}

export function createVerifierMetrics(registry: Registry): VerifierMetrics {
  const registers = [registry];
  const attempts = new Counter({
    name: 'verifier_evaluations_total',
    help: 'Finished evaluation attempts by app, runner, status and attribution.',
    labelNames: ['app', 'runner_id', 'status', 'attribution'],
    registers,
  });
  const latency = new Gauge({
    name: 'verifier_latency_median_ms',
    help: 'Median echo round trip of the latest passing evaluation (ms).',
    labelNames: ['app', 'runner_id'],
    registers,
  });
  const throughput = new Gauge({
    name: 'verifier_throughput_mbps',
    help: 'Receiver-counted throughput of the latest passing evaluation (Mbit/s).',
    labelNames: ['app', 'runner_id', 'direction'],
    registers,
  });
  const hashRate = new Gauge({
    name: 'verifier_hash_rate_hps',
    help: 'Hash rate of the latest passing evaluation (hashes per second).',
    labelNames: ['app', 'runner_id'],
    registers,
  });
  const attempt: VerifierMetrics['attempt'] = (app, runnerId, status, attribution) =>
    attempts.inc({ app, runner_id: runnerId, status, attribution });
  return {
    attempt,
    report(report) {
      const labels = { app: report.route.app, runner_id: report.route.runnerId };
      attempt(labels.app, labels.runner_id, report.outcome.status, report.outcome.attribution);
      if (report.outcome.status !== 'pass') return;
      if (report.latency) latency.set(labels, report.latency.medianMs);
      if (report.download)
        throughput.set({ ...labels, direction: 'download' }, report.download.megabitsPerSecond);
      if (report.upload) throughput.set({ ...labels, direction: 'upload' }, report.upload.megabitsPerSecond);
      if (report.hashRate) hashRate.set(labels, report.hashRate.hashesPerSecond);
    },
  };
}
