// Runs every benchmark of the repository, one process each, and prints their `name: value unit` lines.
import { parentEnv, startTsProcess } from '@sandbox/testing';
import { findBenches, parseFigure } from './find-benches';

const root = process.cwd();
const filter = process.argv[2];

async function runBench(file: string): Promise<{ code: number; figures: number }> {
  let figures = 0;
  const child = startTsProcess(file, [], {
    cwd: root,
    env: parentEnv(),
    keepChars: 0,
    onLine: (line, stream) => {
      if (stream === 'stdout' && parseFigure(line)) {
        figures += 1;
        process.stdout.write(`${line}\n`);
      } else {
        process.stderr.write(stream === 'stdout' ? `  ${line}\n` : `${line}\n`);
      }
    },
  });
  const exit = await child.exited;
  return { code: exit.code ?? 1, figures };
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
