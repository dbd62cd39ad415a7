import { expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DEPLOY_DIR } from '../manifests/manifests';
import { describeRequiring } from '@sandbox/testing';
import { findPromtool } from '../test-support/promtool.fixture';

const PROMTOOL = findPromtool();
const RULES = join(DEPLOY_DIR, 'base', 'sandbox-alerts.rules.yaml');
const TESTS = join(DEPLOY_DIR, 'monitoring', 'alerts.test.yaml');

const describeWithPromtool = describeRequiring({
  met: PROMTOOL !== undefined,
  missing: "promtool (on PATH, or Debian's prometheus package to unpack)",
});

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
