import { describe, expect, it } from '@jest/globals';
import { parseDelayLineSummary } from './link-shaping';

describe("the delay line's summary", () => {
  it('reads every figure in microseconds', () => {
    const out =
      'ready\npackets=63 mean_late_us=12.5 median_late_us=3.1 max_late_us=16600.0 ' +
      'median_verdict_us=2.4 median_read_lag_us=41.7\n';
    expect(parseDelayLineSummary(out)).toEqual({
      packets: 63,
      meanLateUs: 12.5,
      medianLateUs: 3.1,
      maxLateUs: 16600,
      medianVerdictUs: 2.4,
      medianReadLagUs: 41.7,
    });
  });

  it('fails plainly when the delay line printed none', () => {
    expect(() => parseDelayLineSummary('ready\nrecv: bad file descriptor\n')).toThrow(
      /no summary: ready\nrecv: bad file descriptor/u,
    );
  });
});
