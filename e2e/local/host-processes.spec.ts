import { describe, expect, it } from '@jest/globals';
import {
  descendants,
  histogramBuckets,
  histogramQuantile,
  kilobytesField,
  parseStat,
  type HostProcess,
} from './host-processes';

describe('parseStat', () => {
  it('reads the comm, parent and CPU ticks even when the comm holds spaces and parentheses', () => {
    const stat = '4242 (runsc (gofer) x) S 4200 4242 4242 0 -1 4194560 10 0 0 0 17 5 0 0 20 0 1 0 99';
    expect(parseStat(stat)).toEqual({ comm: 'runsc (gofer) x', ppid: 4200, cpuTicks: 22 });
  });
});

describe('descendants', () => {
  it('walks the whole tree below a process and nothing beside it', () => {
    const tree: HostProcess[] = [
      { pid: 1, ppid: 0, comm: 'init' },
      { pid: 10, ppid: 1, comm: 'conmon' },
      { pid: 11, ppid: 10, comm: 'runsc-sandbox' },
      { pid: 12, ppid: 11, comm: 'exe' },
      { pid: 20, ppid: 1, comm: 'other' },
    ];
    expect(descendants(tree, 10).map((process) => process.pid)).toEqual([10, 11, 12]);
  });
});

describe('kilobytesField', () => {
  it('reads a kB field in bytes, and 0 when it is absent', () => {
    const rollup = 'Rss:               12 kB\nPss:                6 kB\nPss_Anon:           4 kB\n';
    expect(kilobytesField(rollup, 'Pss')).toBe(6 * 1024);
    expect(kilobytesField(rollup, 'Swap')).toBe(0);
  });
});

describe('histogram quantiles between two scrapes', () => {
  const scrape = (counts: [string, number][]) =>
    counts
      .map(([le, count]) => `adapter_heartbeat_delay_seconds_bucket{svc="adapter",le="${le}"} ${count}`)
      .join('\n');

  it('sums label sets and bounds the quantile of what was observed in between', () => {
    const before = histogramBuckets(
      scrape([
        ['0.01', 5],
        ['0.1', 5],
        ['+Inf', 5],
      ]),
      'adapter_heartbeat_delay_seconds',
    );
    const after = histogramBuckets(
      scrape([
        ['0.01', 95],
        ['0.1', 104],
        ['+Inf', 105],
      ]),
      'adapter_heartbeat_delay_seconds',
    );
    expect(histogramQuantile(before, after, 0.5)).toBe(0.01);
    expect(histogramQuantile(before, after, 0.99)).toBe(0.1);
    expect(histogramQuantile(before, after, 0.999)).toBe(Infinity);
    expect(histogramQuantile(before, after, 0.95)).toBe(0.1);
    expect(histogramQuantile(after, after, 0.99)).toBeNaN();
  });
});
