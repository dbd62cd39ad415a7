import { describe, expect, it } from '@jest/globals';
import { base32, idGenerator } from './id-scheme';

describe('id scheme', () => {
  it('encodes base32 as Go does without padding, lower-cased (RFC 4648 vectors)', () => {
    const text = (value: string) => base32(new TextEncoder().encode(value));
    expect(['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map(text)).toEqual([
      '',
      'my',
      'mzxq',
      'mzxw6',
      'mzxw6yq',
      'mzxw6ytb',
      'mzxw6ytboi',
    ]);
  });

  it("draws Node's newer shapes: runner_ and session_ ids, 52-character secrets", () => {
    const next = idGenerator('base32');
    expect(next('runner')).toMatch(/^runner_[a-z2-7]{8}$/u);
    expect(next('session')).toMatch(/^session_[a-z2-7]{16}$/u);
    expect(next('secret')).toMatch(/^[a-z2-7]{52}$/u);
    expect(next('proxy')).toMatch(/^[a-z2-7]{16}$/u);
    expect(next('secret')).not.toBe(next('secret'));
  });

  it("draws Node's older shape, 32 hex characters, for every kind", () => {
    const next = idGenerator('hex');
    for (const kind of ['runner', 'session', 'secret', 'proxy', 'channel'] as const) {
      expect(next(kind)).toMatch(/^[0-9a-f]{32}$/u);
    }
  });
});
