import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DEPLOY_DIR } from '../manifests/manifests';
import { findPromtool } from '../test-support/promtool.fixture';

const PROMTOOL = findPromtool();
const RULES = join(DEPLOY_DIR, 'base', 'sandbox-alerts.rules.yaml');
const TESTS = join(DEPLOY_DIR, 'monitoring', 'alerts.test.yaml');

const describeWithPromtool: typeof describe = PROMTOOL
  ? describe
  : Object.assign((name: string, fn: () => void) => {
      process.stderr.write(
        `SKIPPED "${name}": no promtool (not on PATH, and Debian's prometheus package unavailable)\n`,
      );
      describe.skip(name, fn);
    }, describe);

const promtool = (args: string[]) =>
  spawnSync(PROMTOOL ?? 'promtool', args, { encoding: 'utf8', timeout: 60_000 });

describeWithPromtool('the alert rules, by promtool', () => {
  it('are valid rules', () => {
    const result = promtool(['check', 'rules', RULES]);
    expect(result.stdout + result.stderr).toContain('SUCCESS: 4 rules found');
    expect(result.status).toBe(0);
  });

  it('fire exactly when the unit tests say, with the annotations an operator reads', () => {
    const result = promtool(['test', 'rules', TESTS]);
    expect({ status: result.status, output: result.stdout + result.stderr }).toMatchObject({ status: 0 });
  });
});
