/**
 * Verifies evaluation reports offline: schema v1, RFC 8785 digest and Ed25519 signature.
 *
 *   node --import tsx libs/evaluation-report/src/verify-report.cli.ts report.json [--trusted-key HEX]...
 *
 * `-` reads the report from standard input. A `GET /v1/reports/{id}` body is accepted as it is.
 * Exit 0: valid; 1: invalid (the problem is printed); 2: bad usage or unreadable input.
 */
import { readFileSync } from 'node:fs';
import { verifyReport } from './report-signing';

function parseArgs(argv: string[]): { file: string; trusted: string[] } | undefined {
  const trusted: string[] = [];
  let file: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (arg === '--trusted-key') {
      const value = argv[(index += 1)];
      if (!value || !/^[0-9a-f]{64}$/u.test(value)) return undefined;
      trusted.push(value);
    } else if (file === undefined && arg !== undefined) file = arg;
    else return undefined;
  }
  return file === undefined ? undefined : { file, trusted };
}

const args = parseArgs(process.argv.slice(2));
if (!args) {
  process.stderr.write('usage: verify-report <report.json|-> [--trusted-key <64 hex>]...\n');
  process.exit(2);
}
let document: unknown;
try {
  document = JSON.parse(readFileSync(args.file === '-' ? 0 : args.file, 'utf8'));
} catch (error) {
  process.stderr.write(`cannot read a JSON report: ${error instanceof Error ? error.message : 'error'}\n`);
  process.exit(2);
}
const check = verifyReport(document, args.trusted.length > 0 ? args.trusted : undefined);
if (check.ok) {
  const { report } = check.report;
  process.stdout.write(
    `${JSON.stringify({ valid: true, reportId: report.reportId, digest: check.digest, publicKey: check.publicKey, outcome: report.outcome })}\n`,
  );
  process.exit(0);
}
process.stdout.write(`${JSON.stringify({ valid: false, problem: check.problem, detail: check.detail })}\n`);
process.exit(1);
