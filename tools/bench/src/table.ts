/** A plain-text table: one header row, a rule, then the rows; numeric-looking cells align right. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const numeric = headers.map((_, column) => rows.length > 0 && rows.every((row) => isNumeric(row[column])));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => {
        const width = widths[column] ?? 0;
        return numeric[column] ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(headers), rule, ...rows.map((row) => line(headers.map((_, i) => row[i] ?? '')))].join('\n');
}

function isNumeric(cell: string | undefined): boolean {
  return cell === undefined || cell === '' || /^[+-]?(\d|NaN|Infinity)/.test(cell);
}
