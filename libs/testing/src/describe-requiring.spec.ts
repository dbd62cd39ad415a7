import { describe, expect, it } from '@jest/globals';
import { commandWorks, suitePlan } from './describe-requiring';

const met = { met: true, missing: 'root' };
const noGo = { met: false, missing: 'a Go toolchain' };
const noPromtool = { met: false, missing: 'promtool' };

describe('suitePlan', () => {
  it('runs a suite whose requirements are all met', () => {
    expect(suitePlan([met], true)).toEqual({ kind: 'run' });
  });

  it('skips on a developer machine, naming every missing requirement', () => {
    expect(suitePlan([noGo, met, noPromtool], false)).toEqual({
      kind: 'skip',
      needs: 'a Go toolchain and promtool',
    });
  });

  it('fails instead of skipping where every test must run', () => {
    expect(suitePlan([noGo], true)).toEqual({
      kind: 'fail',
      needs: 'a Go toolchain',
    });
  });
});

describe('commandWorks', () => {
  it('is met by a command that exits 0 and not by one that is missing or fails', () => {
    expect(commandWorks('true', [], 'true').met).toBe(true);
    expect(commandWorks('false', [], 'false').met).toBe(false);
    expect(commandWorks('no-such-command-here', [], 'x')).toEqual({ met: false, missing: 'x' });
  });
});
