// Benchmark: two replicas of each service that runs one active replica (instance-manager, adapter,
// redemption-handoff) against one Redis, with the holder killed (kill -9) again and again and paused
// (SIGSTOP past the TTL) every fifth round; the services' two-replica specs do the rounds and check
// that the fenced acts never go back to an older token. LEASE_ROUNDS sets the rounds per service
// (default 125: 100 kills and 25 pauses). Run: npm run bench -- lease
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildProcess } from '@sandbox/process';
import { parentEnv, percentile, printFigure } from '@sandbox/testing';

const ROUNDS = parentEnv()['LEASE_ROUNDS'] ?? '125';
const SPECS = [
  'apps/instance-manager/src/lease.int.spec.ts',
  'apps/adapter/src/lease.int.spec.ts',
  'apps/redemption-handoff/src/lease.int.spec.ts',
];

interface Report {
  service: string;
  kills: number;
  pauses: number;
  takeoverMs: number[];
  acts: number;
}

const dir = await mkdtemp(join(tmpdir(), 'lease-bench-'));
const reportFile = join(dir, 'reports.jsonl');
let failed = false;
for (const spec of SPECS) {
  const child = startChildProcess(process.execPath, ['scripts/dev.mjs', 'test', spec], {
    cwd: process.cwd(),
    env: { ...parentEnv(), LEASE_ROUNDS: ROUNDS, LEASE_REPORT_FILE: reportFile },
    keepChars: 20_000,
  });
  const exit = await child.exited;
  if (exit.code !== 0) {
    failed = true;
    process.stderr.write(`${spec} failed:\n${child.output().slice(-5_000)}\n`);
  }
}
const reports = (await readFile(reportFile, 'utf8').catch(() => ''))
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line) as Report);
const all: number[] = [];
for (const report of reports) {
  const name = `lease_${report.service.replaceAll('-', '_')}`;
  const samples = report.takeoverMs.length;
  all.push(...report.takeoverMs);
  printFigure(`${name}_kills_count`, report.kills, samples);
  printFigure(`${name}_pauses_count`, report.pauses, samples);
  printFigure(`${name}_takeover_p50_ms`, percentile(report.takeoverMs, 50), samples);
  printFigure(`${name}_takeover_p99_ms`, percentile(report.takeoverMs, 99), samples);
  printFigure(`${name}_takeover_max_ms`, Math.max(...report.takeoverMs), samples);
}
if (all.length > 0) {
  printFigure('lease_takeover_p50_ms', percentile(all, 50), all.length);
  printFigure('lease_takeover_p99_ms', percentile(all, 99), all.length);
}
await rm(dir, { recursive: true, force: true });
process.exitCode = failed || reports.length !== SPECS.length ? 1 : 0;
