import { describe, expect, it } from '@jest/globals';
import {
  alertQueries,
  dashboardQueries,
  exposedMetricNames,
  metricNamesOf,
  queriesReadingMissingMetrics,
} from './monitoring-queries';

describe('metricNamesOf', () => {
  it('finds the metrics behind functions, grouping, matchers, ranges and histogram series', () => {
    expect(
      metricNamesOf(
        'histogram_quantile(0.99, sum by (le, kind) (rate(adapter_node_request_duration_seconds_bucket{kind="heartbeat"}[$__rate_interval])))',
      ),
    ).toEqual(['adapter_node_request_duration_seconds']);
    expect(metricNamesOf('max by (phase) (drain_phase) == 1')).toEqual(['drain_phase']);
    expect(metricNamesOf('sum(a_total) / on (svc) group_left sum(b_count) > bool 0 unless c')).toEqual([
      'a_total',
      'b',
      'c',
    ]);
    expect(metricNamesOf('sum(x{reason=~"a|b(c)"}) or vector(0)')).toEqual(['x']);
  });
});

describe('the queries deploy/ ships', () => {
  it('each read at least one metric', () => {
    const queries = [...dashboardQueries(), ...alertQueries()];
    expect(queries.length).toBeGreaterThan(30);
    expect(queries.filter((query) => metricNamesOf(query.expr).length === 0)).toEqual([]);
  });

  it('are reported when they read a metric no service exposes', () => {
    const exposed = exposedMetricNames('# HELP drain_phase x\n# TYPE drain_phase gauge\ndrain_phase 1\n');
    expect(exposed).toEqual(new Set(['drain_phase']));
    expect(
      queriesReadingMissingMetrics(
        [
          { source: 'panel "a"', expr: 'max(drain_phase)' },
          { source: 'panel "b"', expr: 'sum(drain_phase) + sum(made_up_total)' },
        ],
        exposed,
      ),
    ).toEqual([{ source: 'panel "b"', missing: ['made_up_total'] }]);
  });
});
