import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { reportSigningKey, signReport } from './report-signing';
import { RFC8032_PUBLIC_KEY, RFC8032_SECRET_KEY, sampleEvaluationReport } from '@sandbox/testing';

const cli = fileURLToPath(new URL('./verify-report.cli.ts', import.meta.url));
let dir: string;

async function runCli(args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', cli, ...args]);
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'verify-report-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('verify-report CLI', () => {
  it('accepts a signed report (with a trusted key) and refuses an altered one', async () => {
    const signed = signReport(sampleEvaluationReport(), reportSigningKey(RFC8032_SECRET_KEY));
    const good = join(dir, 'good.json');
    await writeFile(good, JSON.stringify(signed));
    const ok = await runCli([good, '--trusted-key', RFC8032_PUBLIC_KEY]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, reportId: 'rep-01' });

    signed.report.plan = { ...signed.report.plan, hashShares: 401 };
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify(signed));
    const refused = await runCli([bad]);
    expect([refused.code, JSON.parse(refused.stdout).problem]).toEqual([1, 'digest']);
  });

  it('exits 2 on bad usage', async () => {
    expect((await runCli([])).code).toBe(2);
    expect((await runCli([join(dir, 'missing.json')])).code).toBe(2);
  });
});
