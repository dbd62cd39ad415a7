import { describe, expect, it } from '@jest/globals';
import { GoJsonError } from '../go/go-json';
import { decodeHeartbeat } from './heartbeat-fields';

describe('decodeHeartbeat (Go encoding/json semantics)', () => {
  it('fills zero values for absent and null fields', () => {
    expect(decodeHeartbeat('null')).toMatchObject({
      runnerId: '',
      capacity: 0,
      proxy: false,
      gpu: undefined,
      sessionIds: [],
    });
    expect(decodeHeartbeat('{"app":null,"capacity":null,"gpu":null}')).toMatchObject({
      app: '',
      capacity: 0,
      gpu: undefined,
    });
  });

  it('matches keys case-insensitively with the last occurrence winning', () => {
    expect(decodeHeartbeat('{"app":"a","APP":"b","Capacity":3}')).toMatchObject({ app: 'b', capacity: 3 });
  });

  it('keeps the price as json.Number text, from a number or a numeric string', () => {
    expect(decodeHeartbeat('{"price_info":{"price":1.50,"unit":"hour"}}').priceInfo).toEqual({
      price: '1.50',
      currency: '',
      unit: 'hour',
    });
    expect(decodeHeartbeat('{"price_info":{"price":"2e-3"}}').priceInfo.price).toBe('2e-3');
  });

  it('turns a bare GPU index into {id}', () => {
    expect(decodeHeartbeat('{"gpu":2}').gpu).toEqual({ id: '2', name: '', vramMb: 0 });
    expect(decodeHeartbeat('{"gpu":{"NAME":"L4","vram_mb":100}}').gpu).toEqual({
      id: '',
      name: 'L4',
      vramMb: 100,
    });
  });

  it.each([
    ['an int written with a fraction', '{"capacity":2.0}'],
    ['an int written with an exponent', '{"capacity":1e1}'],
    ['an int beyond int64', '{"capacity":9223372036854775808}'],
    ['a string for a bool', '{"proxy":"true"}'],
    ['a number for a string', '{"app":1}'],
    ['an empty numeric string', '{"price_info":{"price":""}}'],
    ['a price with spaces', '{"price_info":{"price":" 1"}}'],
    ['a non-string session id', '{"session_ids":[1]}'],
    ['a negative GPU index', '{"gpu":-1}'],
    ['a fractional GPU index', '{"gpu":1.5}'],
    ['a negative VRAM', '{"gpu":{"vram_mb":-1}}'],
    ['a top-level array', '[]'],
    ['trailing data', '{}{}'],
    ['a byte-order mark', '\uFEFF{}'],
  ])('rejects %s', (_name, text) => {
    expect(() => decodeHeartbeat(text)).toThrow(GoJsonError);
  });

  it('ignores unknown fields of any type and keeps null session_ids entries as empty strings', () => {
    expect(decodeHeartbeat('{"o2r":{"x":[1]},"session_ids":["a",null]}').sessionIds).toEqual(['a', '']);
  });
});
