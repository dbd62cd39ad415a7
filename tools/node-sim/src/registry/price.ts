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
 * Node's `normalizePriceAt` (orchestrator/registry.go@e6ed85a9), in its order: with a wei/USD rate
 * (paid mode) a missing, zero, negative or unparsable price is refused first; then empty or zero is
 * free, a negative price and a currency other than USD are refused, and off-chain every price is free
 * (accepted, neither advertised nor enforced). Paid: USD per hour becomes ceil(usd × rate / 3600) wei
 * per second and a fixed USD price ceil(usd × rate) wei. Returns Node's 400 message on failure.
 */
export function normalizePrice(
  quote: PriceQuoteFields,
  weiPerUsd: Rational | undefined,
): { price: AdvertisedPriceValue } | { error: string } {
  const text = quote.price.trim();
  const usd = parseRational(text);
  if (weiPerUsd !== undefined && (!usd || sign(usd) <= 0)) {
    return { error: HeartbeatRuleMessage.PositivePriceOnChain };
  }
  if (text === '' || (usd && sign(usd) === 0)) return { price: FREE_PRICE };
  if (!usd || sign(usd) < 0) return { error: HeartbeatRuleMessage.NegativePrice };
  if (quote.currency !== '' && quote.currency.trim().toLowerCase() !== 'usd') {
    return { error: HeartbeatRuleMessage.Currency };
  }
  if (weiPerUsd === undefined) return { price: FREE_PRICE };
  const unit = quote.unit.trim().toLowerCase() === 'fixed' ? 'fixed' : 'seconds';
  const perUnitUsd = unit === 'seconds' ? divideByInteger(usd, 3600n) : usd;
  const wei = ceilNonNegative(multiply(perUnitUsd, weiPerUsd));
  if (wei <= 0n || wei > INT64_MAX) return { error: PRICE_RANGE_MESSAGE };
  return { price: { wei, usd: toTrimmedDecimal(perUnitUsd, 36), currency: 'wei', unit } };
}
