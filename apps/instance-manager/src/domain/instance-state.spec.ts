import { describe, expect, it } from '@jest/globals';
import { InstanceStateSchema } from '@sandbox/protocol';
import { canTransition } from './instance-state';

describe('the instance state machine', () => {
  const all = InstanceStateSchema.options;
  const allowed = all.flatMap((from) =>
    all.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`),
  );

  it('has exactly the documented transitions', () => {
    expect(allowed.sort()).toEqual(
      [
        'starting→ready',
        'ready→taken',
        'starting→withdrawing',
        'ready→withdrawing',
        'taken→withdrawing',
        'starting→gone',
        'ready→gone',
        'taken→gone',
        'withdrawing→gone',
      ].sort(),
    );
  });

  it('never leaves gone and never re-enters ready or starting', () => {
    expect(all.some((to) => canTransition('gone', to))).toBe(false);
    expect(all.some((from) => canTransition(from, 'starting'))).toBe(false);
    expect(all.filter((from) => canTransition(from, 'ready'))).toEqual(['starting']);
  });
});
