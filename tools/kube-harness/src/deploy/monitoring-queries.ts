import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllYaml } from '@kubernetes/client-node';
import { DEPLOY_DIR } from '../manifests/manifests';

/** The Grafana dashboard and the alert rules deploy/ ships; their queries must name real metrics. */
export const DASHBOARD_FILE = join(DEPLOY_DIR, 'monitoring', 'sandbox-dashboard.json');
export const ALERT_RULES_FILE = join(DEPLOY_DIR, 'base', 'sandbox-alerts.rules.yaml');

interface Dashboard {
  panels: { title: string; targets?: { expr: string }[] }[];
}
interface Rules {
  groups: { rules: { alert: string; expr: string }[] }[];
}

/** `value`, after checking that `at` holds a non-empty string (the files are ours; a typo must fail loudly). */
function text(value: unknown, at: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${at}: expected a non-empty string`);
  return value;
}

/** One PromQL query and where it stands (a panel's or an alert's title). */
export interface MonitoringQuery {
  readonly source: string;
  readonly expr: string;
}

export function dashboardQueries(file = DASHBOARD_FILE): MonitoringQuery[] {
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as Dashboard;
  return dashboard.panels.flatMap((panel, index) =>
    (panel.targets ?? []).map((target) => {
      const source = `panel "${text(panel.title, `panels[${index}].title`)}"`;
      return { source, expr: text(target.expr, source) };
    }),
  );
}

export function alertQueries(file = ALERT_RULES_FILE): MonitoringQuery[] {
  const [rules] = loadAllYaml(readFileSync(file, 'utf8')) as Rules[];
  return (rules?.groups ?? []).flatMap((group) =>
    group.rules.map((rule) => {
      const source = `alert ${text(rule.alert, 'alert name')}`;
      return { source, expr: text(rule.expr, source) };
    }),
  );
}

// Histograms and summaries are exposed under their base name's `# TYPE` line; queries name the series.
const SERIES_SUFFIX = /_(bucket|sum|count)$/;

/**
 * The metric names a PromQL expression reads. Label matchers, grouping clauses, range selectors and
 * strings are removed first; what is left is function names (followed by `(`), keywords, numbers and
 * metric names. Series suffixes of histograms are mapped to the base name.
 */
export function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = bare.slice((match.index ?? 0) + match[0].length).trimStart();
    if (after.startsWith('(') || PROMQL_KEYWORDS.has(match[0])) continue;
    names.add(match[0].replace(SERIES_SUFFIX, ''));
  }
  return [...names].sort();
}

const PROMQL_KEYWORDS = new Set([
  ...['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'Inf', 'NaN'],
  ...['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'],
]);

/** Names of the metrics a `/metrics` exposition declares (`# TYPE name kind`). */
export function exposedMetricNames(exposition: string): Set<string> {
  return new Set([...exposition.matchAll(/^# TYPE (\S+) \S+$/gm)].map((match) => match[1] ?? ''));
}

/** Every query that reads a metric `exposed` lacks, with the names it lacks. */
export function queriesReadingMissingMetrics(
  queries: readonly MonitoringQuery[],
  exposed: ReadonlySet<string>,
): { source: string; missing: string[] }[] {
  return queries.flatMap((query) => {
    const missing = metricNamesOf(query.expr).filter((name) => !exposed.has(name));
    return missing.length === 0 ? [] : [{ source: query.source, missing }];
  });
}
