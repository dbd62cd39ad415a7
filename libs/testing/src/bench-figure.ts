// The one format every `*.bench.ts` prints and `npm run bench` collects:
//   `area_metric_unit: value unit (n=samples)`, e.g. `create_to_discovery_p50_ms: 412.0 ms (n=20)`.
// The name ends with its unit, so a figure reads the same in a log, a JSON file or a comparison.

/** A benchmark figure: one `name: value unit (n=samples)` line. */
export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  /** How many measurements the value summarises; undefined when the line did not say. */
  samples: number | undefined;
}

// Name suffix → printed unit. `<thing>_per_s` prints `<thing>/s` (`jobs_per_s` → `jobs/s`).
const UNIT_SUFFIXES: ReadonlyArray<readonly [suffix: string, unit: string]> = [
  ['_us', 'us'],
  ['_ms', 'ms'],
  ['_s', 's'],
  ['_percent', '%'],
  ['_mb', 'MB'],
  ['_kb', 'KB'],
  ['_ratio', 'ratio'],
  ['_count', 'count'],
];
const NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
const PER_SECOND = /_([a-z]+)_per_s$/;

/** The unit a conforming figure name ends with, or undefined when the name is off the convention. */
export function unitOfFigureName(name: string): string | undefined {
  if (!NAME.test(name)) return undefined;
  const rate = PER_SECOND.exec(name);
  if (rate?.[1] !== undefined) return name.length > rate[0].length ? `${rate[1]}/s` : undefined;
  if (name.endsWith('_per_s')) return undefined;
  for (const [suffix, unit] of UNIT_SUFFIXES) {
    if (name.endsWith(suffix) && name.length > suffix.length) return unit;
  }
  return undefined;
}

/** The value as printed: three decimals for ratios, fewer as magnitude grows. */
export function formatFigureValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  if (unit === 'ratio') return value.toFixed(3);
  if (unit === 'count') return value.toFixed(0);
  const size = Math.abs(value);
  return value.toFixed(size >= 1000 ? 0 : size >= 10 ? 1 : 2);
}

/** The line for one figure; throws when the name is off the convention (a bench's bug). */
export function formatFigure(name: string, value: number, samples: number): string {
  const unit = unitOfFigureName(name);
  if (unit === undefined) throw new Error(`bench figure name off the area_metric_unit convention: ${name}`);
  return `${name}: ${formatFigureValue(value, unit)} ${unit} (n=${samples})`;
}

/** Prints one figure on stdout, where `npm run bench` collects it. */
export function printFigure(name: string, value: number, samples: number): void {
  process.stdout.write(`${formatFigure(name, value, samples)}\n`);
}

const LINE = /^([A-Za-z0-9_.\-/]+): (-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|NaN|Infinity)) (\S+)(?: \(n=(\d+)\))?$/;

/** Parses a figure line (with or without its sample count), or returns undefined for any other output. */
export function parseFigure(line: string): BenchFigure | undefined {
  const match = LINE.exec(line.trim());
  if (!match) return undefined;
  const [, name, value, unit, samples] = match;
  if (name === undefined || value === undefined || unit === undefined) return undefined;
  return { name, value: Number(value), unit, samples: samples === undefined ? undefined : Number(samples) };
}

/** What is wrong with a parsed figure against the convention, or undefined when it conforms. */
export function figureProblem(figure: BenchFigure): string | undefined {
  const unit = unitOfFigureName(figure.name);
  if (unit === undefined) return 'name is not area_metric_unit with a known unit suffix';
  if (unit !== figure.unit) return `unit ${figure.unit} does not match the name's suffix (${unit})`;
  if (figure.samples === undefined) return 'no sample count (n=...)';
  return undefined;
}

/** The value at percentile `p` (0-100, nearest rank) of the samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN;
}
