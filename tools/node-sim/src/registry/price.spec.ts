import { describe, expect, it } from '@jest/globals';
import { HeartbeatRuleMessage } from '@sandbox/protocol';
import { parseRational, toTrimmedDecimal } from '../go/rational';
import { FREE_PRICE, normalizePrice, PRICE_RANGE_MESSAGE } from './price';

// 1 ETH = 2000 USD → 5e14 wei per USD.
const rate = parseRational('500000000000000');
const quote = (price: string, unit = 'hour', currency = 'usd') => ({ price, unit, currency });

describe('normalizePrice', () => {
  it('serves everything free off-chain', () => {
    expect(normalizePrice(quote('12.5'), undefined)).toEqual({ price: FREE_PRICE });
  });

  it.each([[''], ['0'], ['0.0'], ['-0']])('treats %j as free off-chain', (price) => {
    expect(normalizePrice(quote(price), undefined)).toEqual({ price: FREE_PRICE });
  });

  it.each([[''], ['0'], ['0.0'], ['-0'], ['-1'], ['1 usd']])(
    'refuses %j in paid mode before any other price rule',
    (price) => {
      expect(normalizePrice(quote(price, 'hour', 'eth'), rate)).toEqual({
        error: HeartbeatRuleMessage.PositivePriceOnChain,
      });
    },
  );

  it('refuses a negative price off-chain', () => {
    expect(normalizePrice(quote('-1'), undefined)).toEqual({ error: HeartbeatRuleMessage.NegativePrice });
  });

  it('converts an hourly USD quote to ceil(wei per second) and keeps USD per second', () => {
    expect(normalizePrice(quote('1'), rate)).toEqual({
      price: {
        wei: 138_888_888_889n,
        usd: '0.000277777777777777777777777777777778',
        currency: 'wei',
        unit: 'seconds',
      },
    });
    expect(normalizePrice(quote('7.2', ''), rate)).toMatchObject({
      price: { wei: 1_000_000_000_000n, unit: 'seconds' },
    });
  });

  it('converts a fixed quote to wei per request or session', () => {
    expect(normalizePrice(quote('0.01', 'fixed'), rate)).toEqual({
      price: { wei: 5_000_000_000_000n, usd: '0.01', currency: 'wei', unit: 'fixed' },
    });
    expect(normalizePrice(quote('2', 'fixed'), rate)).toMatchObject({ price: { usd: '2' } });
  });

  it.each([
    ['a non-USD currency', quote('1', 'hour', 'eth'), HeartbeatRuleMessage.Currency],
    ['a price beyond int64 wei', quote('1e30', 'fixed'), PRICE_RANGE_MESSAGE],
  ])('refuses %s', (_name, input, error) => {
    expect(normalizePrice(input, rate)).toEqual({ error });
  });
});

describe('toTrimmedDecimal', () => {
  it('rounds half away from zero at the last digit and trims zeros', () => {
    expect(toTrimmedDecimal({ num: 1n, den: 8n }, 2)).toBe('0.13');
    expect(toTrimmedDecimal({ num: 10n, den: 1n }, 36)).toBe('10');
    expect(toTrimmedDecimal({ num: 1n, den: 3n }, 3)).toBe('0.333');
  });
});
