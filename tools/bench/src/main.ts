// Runs the repository's benchmarks, one process each: prints their figures as they come, a summary
// table at the end, and writes the run (figures, core count, load average) as JSON for comparison.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { figureProblem, parentEnv, parseFigure, startTsProcess, type BenchFigure } from '@sandbox/testing';
import { parseBenchArgs } from './args';
import { findBenches } from './find-benches';
import {
  formatComparison,
  formatSummary,
  parseBenchRun,
  resultFileName,
  type BenchResult,
  type BenchRun,
} from './results';

const root = process.cwd();

async function runBench(file: string): Promise<BenchResult> {
  const figures: BenchFigure[] = [];
  const problems: string[] = [];
  const started = performance.now();
  const child = startTsProcess(file, [], {
    cwd: root,
    env: parentEnv(),
    keepChars: 0,
    onLine: (line, stream) => {
      const figure = stream === 'stdout' ? parseFigure(line) : undefined;
      if (figure === undefined) {
        process.stderr.write(stream === 'stdout' ? `  ${line}\n` : `${line}\n`);
        return;
      }
      figures.push(figure);
      process.stdout.write(`${line}\n`);
      const problem = figureProblem(figure);
      if (problem !== undefined) problems.push(`${figure.name}: ${problem}`);
    },
  });
  const exit = await child.exited;
  return { file, exitCode: exit.code ?? 1, durationMs: performance.now() - started, figures, problems };
}

async function writeRun(run: BenchRun, file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(run, null, 2)}\n`);
}

async function main(): Promise<number> {
  const args = parseBenchArgs(process.argv.slice(2));
  const before = args.compare ? parseBenchRun(await readFile(args.compare, 'utf8'), args.compare) : undefined;
  const benches = (await findBenches(root)).filter((file) => !args.filter || file.includes(args.filter));
  const startedAt = new Date();
  const loadAverageAtStart = loadavg();
  const results: BenchResult[] = [];
  for (const file of benches) {
    process.stderr.write(`# ${file}\n`);
    const result = await runBench(file);
    results.push(result);
    if (result.exitCode !== 0 || result.figures.length === 0 || result.problems.length > 0) {
      const why = [`exit ${result.exitCode}`, `${result.figures.length} figures`, ...result.problems];
      process.stderr.write(`# ${file} failed (${why.join('; ')})\n`);
    }
  }
  const run: BenchRun = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { cores: cpus().length, loadAverageAtStart, loadAverageAtEnd: loadavg(), node: process.version },
    benches: results,
  };
  const files = [
    join(root, '.bench', 'results', resultFileName(startedAt)),
    ...(args.json ? [args.json] : []),
  ];
  for (const file of files) await writeRun(run, file);
  process.stdout.write(`\n${formatSummary(run)}\n`);
  if (before) {
    process.stdout.write(
      `\nagainst ${args.compare} (load average at start ${before.machine.loadAverageAtStart.join(' ')})\n`,
    );
    process.stdout.write(`${formatComparison(before, run)}\n`);
  }
  const failed = results.filter((r) => r.exitCode !== 0 || r.figures.length === 0 || r.problems.length > 0);
  process.stderr.write(
    `# ${benches.length} benchmarks, ${failed.length} failed; results in ${files.join(', ')}\n`,
  );
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  return 2;
});
