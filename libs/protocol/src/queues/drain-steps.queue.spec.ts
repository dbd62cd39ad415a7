import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../errors/format-zod-issues';
import { DRAIN_STEPS_QUEUE, DrainStepSchema } from './drain-steps.queue';

describe('drain-steps queue', () => {
  it('has one job per drain phase, in order', () => {
    expect(DRAIN_STEPS_QUEUE.name).toBe('drain-steps');
    expect(Object.keys(DRAIN_STEPS_QUEUE.jobs)).toEqual([
      'withdraw',
      'wait-sessions',
      'window-expired',
      'cancel',
      'replace-orchestrator',
      'wait-node',
      'resume',
    ]);
  });

  it('carries only the drain id', () => {
    expect(DrainStepSchema.parse({ drainId: 'drain-1' })).toEqual({ drainId: 'drain-1' });
    const result = DrainStepSchema.safeParse({ drainId: 'drain-1', phase: 'cancel' });
    expect(formatZodIssues(result.error ?? [])).toEqual([
      { path: '(root)', message: 'unrecognized key: "phase"' },
    ]);
    expect(
      formatZodIssues(DrainStepSchema.safeParse({ drainId: '' }).error ?? []).map((i) => i.path),
    ).toEqual(['drainId']);
  });
});
