// The deploy/ alert on drains, fed by promtool the series this service's own metrics code exports
// (scraped from createDrainMetrics at each step of a drain), not series written by hand.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dumpYaml, loadYaml } from '@kubernetes/client-node';
import { DEPLOY_DIR, findPromtool } from '@sandbox/kube-harness';
import type { DrainPhase, DrainRecord } from '@sandbox/protocol';
import { Registry } from 'prom-client';
import { createDrainMetrics } from './drain-metrics';

const PROMTOOL = findPromtool();
const RULES = join(DEPLOY_DIR, 'base', 'sandbox-alerts.rules.yaml');
const STEP_S = 15;
const START = Date.parse('2026-01-01T00:00:00.000Z');
const DEADLINE_S = 60;
/** Scrapes over six minutes. */
const STEPS = 25;

const record = (phase: DrainPhase): DrainRecord => ({
  id: 'drn_alert',
  phase,
  reason: 'alert spec',
  target: { restart: true },
  windowMs: DEADLINE_S * 1_000,
  quietPeriodMs: 0,
  createdAt: new Date(START).toISOString(),
  deadline: new Date(START + DEADLINE_S * 1_000).toISOString(),
  outcome: null,
  abortRequestedAt: null,
  sessions: { total: 1, byApp: { echo: 1 }, observedAt: new Date(START).toISOString() },
  quietSince: null,
  runners: null,
  replacement: null,
  history: [{ phase: 'withdrawing', at: new Date(START).toISOString() }],
  lastError: null,
  finishedAt: null,
});

interface Rule {
  alert: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** The alert as deploy/ writes it: what promtool must report when it fires. */
const RULE = loadYaml<{ groups: { rules: Rule[] }[] }>(readFileSync(RULES, 'utf8'))
  .groups.flatMap((group) => group.rules)
  .find((rule) => rule.alert === 'SandboxDrainPastDeadline');

/** promtool input series: every drain_* gauge sample of each scrape, as the exposition format gives it. */
async function scrapeSeries(
  phaseAt: (seconds: number) => DrainPhase | undefined,
): Promise<{ series: string; values: string }[]> {
  let now = START;
  const registry = new Registry();
  createDrainMetrics({
    registry,
    now: () => now,
    current: async () => {
      const phase = phaseAt((now - START) / 1_000);
      return phase && record(phase);
    },
  });
  const series = new Map<string, number[]>();
  for (let step = 0; step < STEPS; step++) {
    now = START + step * STEP_S * 1_000;
    for (const line of (await registry.metrics()).split('\n')) {
      const sample = /^(drain_(?:phase|seconds_to_deadline))(?:\{([^}]*)\})? (\S+)$/u.exec(line);
      if (!sample?.[1] || !sample[3]) continue;
      const name = `${sample[1]}{${['pod="drain-controller-0"', ...(sample[2] ? [sample[2]] : [])].join(',')}}`;
      series.set(name, [...(series.get(name) ?? []), Number(sample[3])]);
    }
  }
  return [...series].map(([name, values]) => ({ series: name, values: values.join(' ') }));
}

/** Runs promtool on the rules with the scraped series; `firing`: whether the alert is expected at 4 min. */
function promtoolTest(input: { series: string; values: string }[], firing: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'drain-alert-'));
  const expected = firing ? [{ exp_labels: RULE?.labels, exp_annotations: RULE?.annotations }] : [];
  const test = {
    rule_files: [RULES],
    evaluation_interval: `${STEP_S}s`,
    tests: [
      {
        interval: `${STEP_S}s`,
        input_series: input,
        alert_rule_test: [
          { eval_time: '1m30s', alertname: 'SandboxDrainPastDeadline', exp_alerts: [] },
          { eval_time: '4m', alertname: 'SandboxDrainPastDeadline', exp_alerts: expected },
        ],
      },
    ],
  };
  try {
    writeFileSync(join(dir, 'test.yaml'), dumpYaml(test));
    const result = spawnSync(PROMTOOL ?? 'promtool', ['test', 'rules', join(dir, 'test.yaml')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('SandboxDrainPastDeadline on the series the drain-controller exports', () => {
  it('finds promtool (on PATH or from Debian) and the rule in deploy/', () => {
    expect(PROMTOOL).toBeDefined();
    expect(RULE?.labels).toEqual({ severity: 'critical' });
  });

  it('fires for a drain still waiting a minute past its deadline', async () => {
    const series = await scrapeSeries(() => 'draining');
    // What the service exports past the deadline: 0, never a negative value.
    expect(series).toContainEqual({
      series: 'drain_seconds_to_deadline{pod="drain-controller-0"}',
      values: expect.stringMatching(/^60 45 30 15 0 0 0 /u),
    });
    expect(promtoolTest(series, true)).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('stays silent for a drain that moves on at its deadline, and without any drain', async () => {
    const movesOn = await scrapeSeries((at) => (at < DEADLINE_S + STEP_S ? 'draining' : 'cancelling'));
    expect(promtoolTest(movesOn, false)).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
    const none = await scrapeSeries(() => undefined);
    expect(promtoolTest(none, false)).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });
});
