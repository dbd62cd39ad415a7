import { describe, expect, it } from '@jest/globals';
import { mergeTimestampedLogs } from './container-logs';

describe('mergeTimestampedLogs', () => {
  it('merges both streams in time order even when fractions have different lengths', () => {
    const stdout = '2026-11-30T07:03:59.4553Z first\n2026-11-30T07:03:59.456561816Z third\n';
    const stderr = '2026-11-30T07:03:59.455356267Z second\n2026-11-30T07:04:00Z fourth with  spaces\n';
    expect(mergeTimestampedLogs(stdout, stderr)).toEqual([
      { time: '2026-11-30T07:03:59.4553Z', stream: 'stdout', text: 'first' },
      { time: '2026-11-30T07:03:59.455356267Z', stream: 'stderr', text: 'second' },
      { time: '2026-11-30T07:03:59.456561816Z', stream: 'stdout', text: 'third' },
      { time: '2026-11-30T07:04:00Z', stream: 'stderr', text: 'fourth with  spaces' },
    ]);
  });

  it('keeps the order of lines with the same timestamp and skips lines without one', () => {
    const stdout = '2026-11-30T07:03:59.5+01:00 a\n2026-11-30T07:03:59.5+01:00 b\nError: not a log line\n';
    expect(mergeTimestampedLogs(stdout, '').map((line) => line.text)).toEqual(['a', 'b']);
  });
});
