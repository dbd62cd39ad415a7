import { HeartbeatRuleMessage } from '@sandbox/protocol';
import type { Rational } from '../go/rational';
import {
  ceilNonNegative,
  divideByInteger,
  multiply,
  parseRational,
  sign,
  toTrimmedDecimal,
} from '../go/rational';
import type { PriceQuoteFields } from './heartbeat-fields';

/** A runner's or session's price as Node stores and advertises it. */
export interface AdvertisedPriceValue {
  /** Whole wei per unit; `0n` when free. */
  readonly wei: bigint;
  /** USD per unit as Go formats it (`FloatString(36)`, trimmed); `''` when free. */
  readonly usd: string;
  readonly currency: '' | 'wei';
  readonly unit: '' | 'seconds' | 'fixed';
}

export const FREE_PRICE: AdvertisedPriceValue = Object.freeze({ wei: 0n, usd: '', currency: '', unit: '' });

/** Go's int64 upper bound; Node refuses converted prices beyond it. */
const INT64_MAX = 2n ** 63n - 1n;

/** Message of a conversion that does not fit int64 (Node's `pm.ConvertRunnerPrice`). */
export const PRICE_RANGE_MESSAGE = 'converted wei price exceeds supported range';

/** True when sessions at this price must be paid for. */
export function isPaid(price: AdvertisedPriceValue): boolean {
  return price.wei > 0n;
}

/**
 * Node's `normalizePriceAt`: free for empty or zero prices and for every price when no wei/USD rate is
 * configured (off-chain); otherwise USD per hour becomes ceil(usd × rate / 3600) wei per second and a
 * fixed USD price ceil(usd × rate) wei. Returns Node's 400 message on failure.
 */
export function normalizePrice(
  quote: PriceQuoteFields,
  weiPerUsd: Rational | undefined,
): { price: AdvertisedPriceValue } | { error: string } {
  const text = quote.price.trim();
  if (text === '' || text === '0') return { price: FREE_PRICE };
  const usd = parseRational(text);
  if (!usd || sign(usd) < 0) return { error: HeartbeatRuleMessage.NegativePrice };
  if (sign(usd) === 0) return { price: FREE_PRICE };
  if (quote.currency !== '' && quote.currency.trim().toLowerCase() !== 'usd') {
    return { error: HeartbeatRuleMessage.Currency };
  }
  // Off-chain Node accepts the quote but neither advertises nor enforces it.
  if (weiPerUsd === undefined) return { price: FREE_PRICE };
  const unit = quote.unit.trim().toLowerCase() === 'fixed' ? 'fixed' : 'seconds';
  const perUnitUsd = unit === 'seconds' ? divideByInteger(usd, 3600n) : usd;
  const wei = ceilNonNegative(multiply(perUnitUsd, weiPerUsd));
  if (wei <= 0n || wei > INT64_MAX) return { error: PRICE_RANGE_MESSAGE };
  return { price: { wei, usd: toTrimmedDecimal(perUnitUsd, 36), currency: 'wei', unit } };
}
