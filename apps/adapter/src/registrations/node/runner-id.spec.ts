import { describe, expect, it } from '@jest/globals';
import { RunnerIdSchema } from '@sandbox/protocol';
import { runnerIdForInstance } from './runner-id';

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/u;

describe('runnerIdForInstance', () => {
  it('uses an instance id as it is: already within Node charset and its hostname-proxy rule', () => {
    expect(runnerIdForInstance('echo-7f9c2')).toBe('echo-7f9c2');
    const longest = `a${'b'.repeat(61)}c`;
    expect(runnerIdForInstance(longest)).toBe(longest);
  });

  it('folds anything else into a distinct lowercase DNS label, deterministically', () => {
    const odd = ['Echo_Instance.1', `${'x'.repeat(100)}`, '---', 'ÄÖÜ', 'a_b', 'a-b_'];
    const ids = odd.map(runnerIdForInstance);
    for (const id of ids) {
      expect(id).toMatch(DNS_LABEL);
      expect(RunnerIdSchema.safeParse(id).success).toBe(true);
    }
    expect(new Set(ids).size).toBe(odd.length);
    expect(odd.map(runnerIdForInstance)).toEqual(ids);
  });
});
