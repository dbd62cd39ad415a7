import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../errors/format-zod-issues';
import { EVALUATIONS_QUEUE, RunEvaluationSchema } from './evaluations.queue';

const run = {
  evaluationId: 'eval-01J0ABCDEF',
  target: { app: 'eval-responder' },
  requestedAt: '2025-06-01T00:00:00.000Z',
  trigger: 'scheduled',
};

describe('evaluations queue', () => {
  it('has a persistent name and one job', () => {
    expect(EVALUATIONS_QUEUE.name).toBe('evaluations');
    expect(Object.keys(EVALUATIONS_QUEUE.jobs)).toEqual(['run-evaluation']);
  });

  it('accepts scheduled runs on an app and on-demand runs on one runner', () => {
    expect(RunEvaluationSchema.parse(run)).toEqual(run);
    const pinned = {
      ...run,
      trigger: 'on-demand',
      target: { app: 'eval-responder', runnerId: 'eval-responder-x1' },
    };
    expect(RunEvaluationSchema.parse(pinned)).toEqual(pinned);
  });

  it('rejects a bad target and trigger with readable paths, and refuses a seed', () => {
    const result = RunEvaluationSchema.safeParse({
      ...run,
      target: { runnerId: 'a b' },
      trigger: 'cron',
      seed: 'x',
    });
    expect(formatZodIssues(result.error ?? []).map((issue) => issue.path)).toEqual([
      'target.app',
      'target.runnerId',
      'trigger',
      '(root)',
    ]);
  });
});
