// Test doubles shared by this library's specs: an in-memory log destination.

/** A pino destination that keeps every line in memory. */
export function memoryDestination() {
  const lines: string[] = [];
  return {
    lines,
    write(line: string) {
      lines.push(line);
    },
    /** Every line parsed as JSON. */
    records(): Record<string, unknown>[] {
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    text(): string {
      return lines.join('');
    },
  };
}
