import { z } from 'zod';

// Go's time.Duration is an int64 count of nanoseconds; bigint keeps every value exact.
const NS_PER_UNIT: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_DURATION_NS = (1n << 63n) - 1n;
const NS_PER_MS = 1_000_000n;
const NS_PER_SECOND = 1_000_000_000n;
const NS_PER_MINUTE = 60n * NS_PER_SECOND;
const NS_PER_HOUR = 60n * NS_PER_MINUTE;

/** One `<number><unit>` element of a Go duration, e.g. `1.5h`. */
const ELEMENT = /^(\d*)(?:\.(\d*))?([^\d.]+)/u;

function parseElement(rest: string): { ns: bigint; length: number } | undefined {
  const match = ELEMENT.exec(rest);
  if (!match) return undefined;
  const [whole, intDigits = '', fracDigits = '', unitName = ''] = match;
  if (intDigits === '' && fracDigits === '') return undefined;
  // Go takes the unit as the run of characters up to the next digit or '.'.
  const unit = NS_PER_UNIT[unitName];
  if (unit === undefined) return undefined;
  let ns = BigInt(intDigits || '0') * unit;
  if (fracDigits !== '') {
    // Go truncates the fractional part toward zero at nanosecond precision.
    ns += (BigInt(fracDigits) * unit) / 10n ** BigInt(fracDigits.length);
  }
  return { ns, length: whole.length };
}

/**
 * Parses a Go duration string (`time.ParseDuration` grammar: `300ms`, `1.5h`, `2h45m`, `-1m30s`,
 * `0`) into integer nanoseconds. Returns `undefined` for anything Go would reject, including
 * values outside the int64 range.
 */
export function parseGoDuration(text: string): bigint | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  while (rest !== '') {
    const element = parseElement(rest);
    if (!element) return undefined;
    total += element.ns;
    // Go allows exactly -2^63 but nothing beyond 2^63-1 in magnitude otherwise.
    if (total > MAX_DURATION_NS + (negative ? 1n : 0n)) return undefined;
    rest = rest.slice(element.length);
  }
  return negative ? -total : total;
}

function withFraction(value: bigint, scale: bigint): string {
  const whole = value / scale;
  const fraction = value % scale;
  if (fraction === 0n) return whole.toString();
  const digits = fraction
    .toString()
    .padStart(scale.toString().length - 1, '0')
    .replace(/0+$/u, '');
  return `${whole}.${digits}`;
}

/**
 * Formats nanoseconds exactly as Go's `time.Duration.String()` does: `0s`, `1.5µs`, `250ms`, `5s`,
 * `1m0s`, `1h30m0s`, `-2.5s`.
 */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const magnitude = ns < 0n ? -ns : ns;
  if (magnitude < 1_000n) return `${sign}${magnitude}ns`;
  if (magnitude < NS_PER_MS) return `${sign}${withFraction(magnitude, 1_000n)}µs`;
  if (magnitude < NS_PER_SECOND) return `${sign}${withFraction(magnitude, NS_PER_MS)}ms`;
  const hours = magnitude / NS_PER_HOUR;
  const minutes = (magnitude % NS_PER_HOUR) / NS_PER_MINUTE;
  const seconds = withFraction(magnitude % NS_PER_MINUTE, NS_PER_SECOND);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Parses a Go duration into milliseconds (fractional below 1 ms); `undefined` when invalid. */
export function parseGoDurationMs(text: string): number | undefined {
  const ns = parseGoDuration(text);
  return ns === undefined ? undefined : Number(ns) / 1e6;
}

/** Formats milliseconds (rounded to whole nanoseconds) as a Go duration string. */
export function formatGoDurationMs(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError('duration must be a finite number of milliseconds');
  return formatGoDuration(BigInt(Math.round(ms * 1e6)));
}

/** A Go duration string as Node writes it on the wire (e.g. `heartbeat_interval: "5s"`). */
export const GoDurationSchema = z.string().refine((text) => parseGoDuration(text) !== undefined, {
  error: 'must be a Go duration such as "5s", "1m30s" or "250ms"',
});

/** A positive Go duration string, parsed to milliseconds. */
export const PositiveGoDurationMsSchema = GoDurationSchema.transform(
  (text) => parseGoDurationMs(text) ?? 0,
).refine((ms) => ms > 0, { error: 'must be a positive duration' });
