import { describe, expect, it } from '@jest/globals';
import type { EvaluationAttempt } from '@sandbox/protocol';
import { applyAttempt, MAX_ATTEMPTS, targetView, type TargetRecord } from './freshness';

const target = { runnerId: 'r-1', app: 'eval-responder' };
const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

function attempt(
  n: number,
  status: 'pass' | 'fail',
  attribution: EvaluationAttempt['attribution'],
  withReport = true,
) {
  return {
    attempt: {
      evaluationId: `e-${n}`,
      trigger: 'scheduled' as const,
      finishedAt: at(n * 1000),
      status,
      attribution,
      reasonCode: status === 'pass' ? 'ok' : 'x',
      sessionId: `s-${n}`,
      reportId: withReport ? `rep-${n}` : null,
    },
    validUntil: withReport ? at(n * 1000 + HOUR) : null,
  };
}

describe('freshness rules', () => {
  it('keeps the last pass through platform failures, never extending its expiry', () => {
    let record = applyAttempt(undefined, attempt(1, 'pass', 'none'), target);
    record = applyAttempt(record, attempt(2, 'fail', 'platform'), target);
    record = applyAttempt(record, attempt(3, 'fail', 'platform', false), target);
    expect(record.current).toMatchObject({
      state: 'pass',
      reportId: 'rep-1',
      validUntil: at(1000 + HOUR),
      carriedForward: true,
    });
    expect(record.attempts.map((a) => a.evaluationId)).toEqual(['e-3', 'e-2', 'e-1']);
    expect(targetView(record, 1000 + HOUR).current?.state).toBe('expired');
    expect(targetView(record, 999 + HOUR).current?.state).toBe('pass');
  });

  it('shows a target failure at once, hiding the older pass, and keeps unknown explicit', () => {
    let record = applyAttempt(undefined, attempt(1, 'pass', 'none'), target);
    record = applyAttempt(record, attempt(2, 'fail', 'target'), target);
    expect(record.current).toMatchObject({ state: 'fail', reportId: 'rep-2', carriedForward: false });
    record = applyAttempt(record, attempt(3, 'fail', 'unknown'), target);
    expect(record.current).toMatchObject({ state: 'unknown', reportId: 'rep-3' });
    record = applyAttempt(record, attempt(4, 'fail', 'platform'), target);
    expect(record.current).toMatchObject({ state: 'unknown', reportId: 'rep-3', carriedForward: true });
  });

  it('never extends validUntil through any sequence of platform failures (random sequences)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 200; run += 1) {
      let record: TargetRecord | undefined;
      let lastFresh: string | null = null;
      for (let n = 1; n <= 15; n += 1) {
        const roll = random();
        const next =
          roll < 0.3
            ? attempt(n, 'pass', 'none')
            : roll < 0.45
              ? attempt(n, 'fail', 'target')
              : attempt(n, 'fail', 'platform', roll < 0.7);
        record = applyAttempt(record, next, target);
        if (next.attempt.attribution !== 'platform') lastFresh = next.validUntil;
        expect(record.current?.validUntil ?? null).toBe(lastFresh);
      }
      expect(record?.attempts.length).toBeLessThanOrEqual(MAX_ATTEMPTS);
    }
  });
});
