import { describe, expect, it } from '@jest/globals';
import {
  ReliabilityResultSchema,
  ReportOutcomeSchema,
  ReportRouteSchema,
  SeedCommitmentSchema,
} from './evaluation-report.schema';
import { CreateEvaluationRequestSchema } from './verifier-api.schema';

const route = {
  orchestratorUrl: 'http://127.0.0.1:8935',
  runnerId: 'r-1',
  sessionId: 's-1',
  app: 'eval-responder',
};

describe('evaluation report v1 parts', () => {
  it('refuses unknown fields at every level', () => {
    expect(ReportRouteSchema.safeParse(route).success).toBe(true);
    expect(ReportRouteSchema.safeParse({ ...route, sessionToken: 't' }).success).toBe(false);
    expect(
      SeedCommitmentSchema.safeParse({ algorithm: 'sha256', value: 'a'.repeat(64), seed: 'x' }).success,
    ).toBe(false);
    expect(CreateEvaluationRequestSchema.safeParse({ target: { app: 'x' }, seed: 'y' }).success).toBe(false);
  });

  it('places a report among the evaluations of its session, within bounds', () => {
    const place = (index: number, count: number) =>
      ReportRouteSchema.safeParse({ ...route, sessionEvaluation: { index, count } }).success;
    expect(place(2, 3)).toBe(true);
    expect(place(4, 3)).toBe(false);
    expect(place(0, 3)).toBe(false);
    const request = (evaluationsPerSession: number) =>
      CreateEvaluationRequestSchema.safeParse({ target: { app: 'x' }, evaluationsPerSession }).success;
    expect([request(1), request(10), request(0), request(11)]).toEqual([true, true, false, false]);
  });

  it('ties pass to attribution none and failures to a cause', () => {
    expect(
      ReportOutcomeSchema.safeParse({ status: 'pass', attribution: 'none', reasonCode: 'ok' }).success,
    ).toBe(true);
    expect(
      ReportOutcomeSchema.safeParse({ status: 'pass', attribution: 'target', reasonCode: 'ok' }).success,
    ).toBe(false);
    expect(
      ReportOutcomeSchema.safeParse({ status: 'fail', attribution: 'none', reasonCode: 'invalid-share' })
        .success,
    ).toBe(false);
  });

  it('counts every failure kind and nothing else', () => {
    const failures = {
      timeout: 0,
      reset: 1,
      'http-5xx': 0,
      'http-4xx': 0,
      'corrupt-bytes': 0,
      'invalid-share': 0,
      payment: 0,
      other: 0,
    };
    expect(ReliabilityResultSchema.safeParse({ requests: 3, failures, resets: 1 }).success).toBe(true);
    expect(
      ReliabilityResultSchema.safeParse({ requests: 3, failures: { ...failures, dns: 1 }, resets: 1 })
        .success,
    ).toBe(false);
  });
});
