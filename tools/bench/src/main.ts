// Runs every benchmark of the repository, one process each, and prints their `name: value unit` lines.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { findBenches, parseFigure } from './find-benches';

const root = process.cwd();
const filter = process.argv[2];

async function runBench(file: string): Promise<{ code: number; figures: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let figures = 0;
  for await (const line of createInterface({ input: child.stdout })) {
    if (parseFigure(line)) {
      figures += 1;
      process.stdout.write(`${line}\n`);
    } else {
      process.stderr.write(`  ${line}\n`);
    }
  }
  const code = await new Promise<number>((resolve) => child.on('close', (status) => resolve(status ?? 1)));
  return { code, figures };
}

const benches = (await findBenches(root)).filter((file) => !filter || file.includes(filter));
let failed = 0;
for (const file of benches) {
  process.stderr.write(`# ${file}\n`);
  const { code, figures } = await runBench(file);
  if (code !== 0 || figures === 0) {
    failed += 1;
    process.stderr.write(`# ${file} failed (exit ${code}, ${figures} figures)\n`);
  }
}
process.stderr.write(`# ${benches.length} benchmarks, ${failed} failed\n`);
process.exitCode = failed === 0 ? 0 : 1;
