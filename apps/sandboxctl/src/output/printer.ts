import { styleText } from 'node:util';
import Table from 'cli-table3';
import { stringify as toYaml } from 'yaml';

/** `-o`: aligned columns (default), more columns, or the services' own documents as JSON or YAML. */
export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What a cell's colour says; colours are only used on a terminal and never with NO_COLOR. */
export type Tone = 'good' | 'warn' | 'bad' | 'dim';

/** One column of a table. */
export interface Column<T> {
  header: string;
  cell: (row: T) => string;
  /** Shown with `-o wide` only. */
  wide?: boolean;
  tone?: (row: T) => Tone | undefined;
}

/** A stream that may be a terminal. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const TONE_STYLES: Record<Tone, Parameters<typeof styleText>[0]> = {
  good: 'green',
  warn: 'yellow',
  bad: 'red',
  dim: 'gray',
};

/** Borderless, kubectl-like columns: three spaces between them, no frame. */
const PLAIN_CHARS = Object.fromEntries(
  [
    'top',
    'top-mid',
    'top-left',
    'top-right',
    'bottom',
    'bottom-mid',
    'bottom-left',
    'bottom-right',
    'left',
    'left-mid',
    'mid',
    'mid-mid',
    'right',
    'right-mid',
    'middle',
  ].map((name) => [name, '']),
);

/** Writes command results to stdout and notes (progress, hints) to stderr. */
export class Printer {
  readonly format: OutputFormat;
  readonly colour: boolean;
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;

  constructor(options: {
    format: OutputFormat;
    colour: boolean;
    stdout: OutputStream;
    stderr: OutputStream;
  }) {
    this.format = options.format;
    this.colour = options.colour;
    this.stdout = options.stdout;
    this.stderr = options.stderr;
  }

  get structured(): boolean {
    return this.format === 'json' || this.format === 'yaml';
  }

  /** A document, as JSON or YAML. */
  document(value: unknown): void {
    this.stdout.write(this.format === 'yaml' ? toYaml(value) : `${JSON.stringify(value, null, 2)}\n`);
  }

  /** `raw` with -o json|yaml, else the rows as a table. */
  list<T>(
    raw: unknown,
    rows: readonly T[],
    columns: readonly Column<T>[],
    empty = 'No resources found.',
  ): void {
    if (this.structured) return this.document(raw);
    if (rows.length === 0) {
      this.stderr.write(`${empty}\n`);
      return;
    }
    this.stdout.write(`${this.table(rows, columns)}\n`);
  }

  /** The rows as aligned columns (wide columns only with `-o wide`). */
  table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
    const shown = columns.filter((column) => this.format === 'wide' || !column.wide);
    const table = new Table({
      head: shown.map((column) => column.header),
      chars: PLAIN_CHARS,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 3, compact: true },
    });
    for (const row of rows)
      table.push(shown.map((column) => this.tone(column.cell(row), column.tone?.(row))));
    return table
      .toString()
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n');
  }

  tone(text: string, tone: Tone | undefined): string {
    if (!this.colour || tone === undefined) return text;
    return styleText(TONE_STYLES[tone], text, { validateStream: false });
  }

  line(text: string): void {
    this.stdout.write(`${text}\n`);
  }

  note(text: string): void {
    this.stderr.write(`${text}\n`);
  }
}

/** Colour only on a terminal, never with NO_COLOR set (to anything), never with TERM=dumb. */
export function useColour(
  stream: OutputStream,
  env: { readonly [name: string]: string | undefined },
): boolean {
  return stream.isTTY === true && env['NO_COLOR'] === undefined && env['TERM'] !== 'dumb';
}
