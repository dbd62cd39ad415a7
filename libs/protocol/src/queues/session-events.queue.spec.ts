import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../errors/format-zod-issues';
import { SESSION_EVENTS_QUEUE, SessionReleasedSchema, SessionReservedSchema } from './session-events.queue';

const reserved = {
  instanceId: 'example-app-7f3k2',
  runnerId: 'example-app-7f3k2',
  sessionId: '9f86d081884c7d659a2feaa0c55ad015',
  at: '2025-06-01T12:00:01.250Z',
  source: 'o2r',
};

describe('session-events queue', () => {
  it('has a persistent name and a closed set of jobs', () => {
    expect(SESSION_EVENTS_QUEUE.name).toBe('session-events');
    expect(Object.keys(SESSION_EVENTS_QUEUE.jobs)).toEqual([
      'session-reserved',
      'session-released',
      'runner-withdrawn',
      'registration-failed',
    ]);
  });

  it('accepts events from every source', () => {
    expect(SessionReservedSchema.parse(reserved)).toEqual(reserved);
    for (const source of ['heartbeat-reconcile', 're-register', 'unregister']) {
      expect(SessionReleasedSchema.safeParse({ ...reserved, source }).success).toBe(true);
    }
  });

  it('rejects malformed events with readable paths', () => {
    const result = SessionReleasedSchema.safeParse({
      ...reserved,
      sessionId: 'a/b',
      at: 'now',
      source: 'guess',
    });
    expect(result.success).toBe(false);
    expect(formatZodIssues(result.error ?? []).map((issue) => issue.path)).toEqual([
      'sessionId',
      'at',
      'source',
    ]);
  });

  it('never carries a session token', () => {
    const result = SessionReservedSchema.safeParse({ ...reserved, sessionToken: 'abc' });
    expect(result.success).toBe(false);
  });
});
