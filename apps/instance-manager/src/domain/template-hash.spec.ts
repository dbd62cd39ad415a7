import { describe, expect, it } from '@jest/globals';
import { canonicalJson, templateHash } from './template-hash';
import { reusableSpec, singleSessionSpec } from './spec-fixtures.fixture';

describe('templateHash', () => {
  it('ignores key order and replica counts but not the template', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(templateHash(singleSessionSpec(1, 2))).toBe(templateHash(singleSessionSpec(5, 9)));
    expect(templateHash(singleSessionSpec(1, 2))).not.toBe(
      templateHash(singleSessionSpec(1, 2, { env: { A: 'b' } })),
    );
    expect(templateHash(singleSessionSpec(1, 2))).not.toBe(
      templateHash(singleSessionSpec(1, 2, { price: { usd: '1', unit: 'fixed' } })),
    );
    expect(templateHash(reusableSpec(4, 1, 2))).toBe(templateHash(reusableSpec(4, 0, 9)));
    expect(templateHash(reusableSpec(4, 1, 2))).not.toBe(templateHash(reusableSpec(5, 1, 2)));
    expect(templateHash(reusableSpec(4, 1, 2))).toMatch(/^[0-9a-f]{16}$/);
  });
});
