/** An exact non-reduced fraction; `den` is always positive. Mirrors what Node does with Go's big.Rat. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/u;

/**
 * Parses a decimal number (`12`, `-0.5`, `1e-3`, `.25`) exactly, as Go's `big.Rat.SetString` does for
 * decimal input. Returns `undefined` for anything else.
 */
export function parseRational(text: string): Rational | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 10_000) return undefined;
  let num = BigInt(`${whole}${fraction}` || '0');
  let den = 10n ** BigInt(fraction.length);
  if (exponent >= 0) num *= 10n ** BigInt(exponent);
  else den *= 10n ** BigInt(-exponent);
  return { num: sign === '-' ? -num : num, den };
}

export function sign(value: Rational): -1 | 0 | 1 {
  return value.num === 0n ? 0 : value.num > 0n ? 1 : -1;
}

export function multiply(a: Rational, b: Rational): Rational {
  return { num: a.num * b.num, den: a.den * b.den };
}

export function divideByInteger(a: Rational, divisor: bigint): Rational {
  return { num: a.num, den: a.den * divisor };
}

/** Smallest integer ≥ a non-negative rational. */
export function ceilNonNegative(value: Rational): bigint {
  const quotient = value.num / value.den;
  return value.num % value.den === 0n ? quotient : quotient + 1n;
}

/**
 * Go's `big.Rat.FloatString(digits)` for a non-negative value (last digit rounded half away from zero),
 * then trailing zeros and a trailing point trimmed, as Node formats `price_usd`.
 */
export function toTrimmedDecimal(value: Rational, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const scaled = value.num * scale;
  let units = scaled / value.den;
  if ((scaled % value.den) * 2n >= value.den) units += 1n;
  const whole = units / scale;
  const fraction = (units % scale).toString().padStart(digits, '0').replace(/0+$/u, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}

export function add(a: Rational, b: Rational): Rational {
  return { num: a.num * b.den + b.num * a.den, den: a.den * b.den };
}

export function subtract(a: Rational, b: Rational): Rational {
  return { num: a.num * b.den - b.num * a.den, den: a.den * b.den };
}

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compare(a: Rational, b: Rational): -1 | 0 | 1 {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left === right ? 0 : left < right ? -1 : 1;
}

/** Reduces to lowest terms (keeps numbers small across many additions). */
export function reduce(value: Rational): Rational {
  let [a, b] = [value.num < 0n ? -value.num : value.num, value.den];
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? { num: 0n, den: 1n } : { num: value.num / a, den: value.den / a };
}
