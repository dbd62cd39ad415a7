/** The value at percentile `p` (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

/** One `name: value unit` line, the format `npm run bench` collects. */
export function printFigure(name: string, value: number, unit: string): void {
  process.stdout.write(`${name}: ${value.toFixed(unit === 'ratio' ? 3 : unit === 'ms' ? 1 : 0)} ${unit}\n`);
}
