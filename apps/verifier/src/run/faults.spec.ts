import { describe, expect, it } from '@jest/globals';
import { nodeUnreachableFault } from './faults';

const withCode = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: { code } });

describe('nodeUnreachableFault', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'])('blames the target when Node %s', (code) => {
    expect(nodeUnreachableFault(withCode(code))).toMatchObject({
      attribution: 'target',
      reasonCode: 'node-unreachable',
      failureKind: 'reset',
    });
  });

  it('cannot tell who failed on a timeout, a name that does not resolve or no route', () => {
    const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    expect(nodeUnreachableFault(timeout)).toMatchObject({
      attribution: 'unknown',
      reasonCode: 'node-no-answer',
      failureKind: 'timeout',
    });
    for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])
      expect(nodeUnreachableFault(withCode(code))).toMatchObject({
        attribution: 'unknown',
        reasonCode: 'node-no-answer',
        failureKind: 'other',
      });
  });
});
