import { describe, expect, it } from '@jest/globals';
import { createSecretScrubber, SCRUBBED } from './secret-scrubber';

describe('createSecretScrubber', () => {
  it('replaces every occurrence of every registered value', () => {
    const secrets = createSecretScrubber();
    secrets.register('first-secret-value');
    secrets.register(Buffer.from('second-secret-value'));
    const text = 'a first-secret-value b second-secret-value c first-secret-value';
    expect(secrets.scrub(text)).toBe(`a ${SCRUBBED} b ${SCRUBBED} c ${SCRUBBED}`);
  });

  it('replaces JSON-escaped forms, once and twice escaped, and the value without its trailing newline', () => {
    const secrets = createSecretScrubber();
    const value = 'quote"and\\slash\n';
    secrets.register(value);
    const once = JSON.stringify({ v: value });
    const twice = JSON.stringify({ v: once });
    expect(secrets.scrub(once)).toBe(`{"v":"${SCRUBBED}"}`);
    expect(secrets.scrub(twice)).not.toContain('quote');
    expect(secrets.scrub('header: quote"and\\slash;')).toBe(`header: ${SCRUBBED};`);
  });

  it('replaces the value three times JSON-escaped and percent-encoded', () => {
    const secrets = createSecretScrubber();
    const value = 'p@ss"word/with&more';
    secrets.register(value);
    const thrice = JSON.stringify({ a: JSON.stringify({ b: JSON.stringify({ c: value }) }) });
    expect(secrets.scrub(thrice)).not.toContain('word');
    expect(secrets.scrub(`/login?password=${encodeURIComponent(value)}`)).toBe(`/login?password=${SCRUBBED}`);
  });

  it('treats regular-expression characters literally', () => {
    const secrets = createSecretScrubber();
    secrets.register('a.b*c+d?(e)[f]');
    expect(secrets.scrub('x a.b*c+d?(e)[f] y axbbbc')).toBe(`x ${SCRUBBED} y axbbbc`);
  });

  it('rejects values too short to scrub and forgets values on request', () => {
    const secrets = createSecretScrubber();
    expect(() => secrets.register('short')).toThrow('at least 8');
    secrets.register('session-token-1234');
    expect(secrets.size).toBe(1);
    secrets.forget('session-token-1234');
    expect(secrets.size).toBe(0);
    expect(secrets.scrub('session-token-1234')).toBe('session-token-1234');
  });
});
