import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../errors/format-zod-issues';
import { ADAPTER_COMMANDS_QUEUE } from './adapter-commands.queue';

describe('adapter-commands queue', () => {
  it('has a persistent name and a closed set of jobs', () => {
    expect(ADAPTER_COMMANDS_QUEUE.name).toBe('adapter-commands');
    expect(Object.keys(ADAPTER_COMMANDS_QUEUE.jobs)).toEqual(['withdraw-all', 'cancel-sessions', 'resume']);
  });

  it.each(['withdraw-all', 'cancel-sessions', 'resume'] as const)('%s accepts a drain command', (name) => {
    const command = { drainId: 'drain-20250601-1', requestedAt: '2025-06-01T03:00:00.000Z' };
    expect(ADAPTER_COMMANDS_QUEUE.jobs[name].parse(command)).toEqual(command);
  });

  it('rejects a command without a drain id or with a bad time', () => {
    const result = ADAPTER_COMMANDS_QUEUE.jobs['withdraw-all'].safeParse({ requestedAt: '03:00' });
    expect(formatZodIssues(result.error ?? []).map((issue) => issue.path)).toEqual([
      'drainId',
      'requestedAt',
    ]);
  });
});
