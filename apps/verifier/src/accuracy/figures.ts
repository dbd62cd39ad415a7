// Bench output in the repository's convention: `area_metric_unit: value unit (n=samples)`, the unit
// following from the name's suffix.
const UNITS: readonly (readonly [suffix: string, unit: string])[] = [
  ['_ms', 'ms'],
  ['_percent', '%'],
  ['_mbit_per_s', 'mbit/s'],
  ['_hashes_per_s', 'hashes/s'],
  ['_ratio', 'ratio'],
  ['_count', 'count'],
];

function digits(value: number, unit: string): number {
  if (unit === 'ratio') return 4;
  if (unit === 'count') return 0;
  const size = Math.abs(value);
  return size >= 1000 ? 0 : size >= 10 ? 1 : 3;
}

/** Prints one figure; throws on a name without a known unit suffix (a bench's bug). */
export function figure(name: string, value: number, samples: number): void {
  const unit = UNITS.find(([suffix]) => name.endsWith(suffix))?.[1];
  if (!/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/u.test(name) || unit === undefined)
    throw new Error(`bench figure name off the area_metric_unit convention: ${name}`);
  process.stdout.write(`${name}: ${value.toFixed(digits(value, unit))} ${unit} (n=${samples})\n`);
}

/** A comment line: how a figure was obtained (never parsed as a figure). */
export const note = (text: string) => void process.stdout.write(`# ${text}\n`);
