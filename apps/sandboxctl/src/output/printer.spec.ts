import { describe, expect, it } from '@jest/globals';
import { CapturedStream } from '../__fixtures__/memory-io';
import { formatWei, parseDuration, duration } from './format-values';
import { Printer, useColour } from './printer';

const rows = [
  { name: 'echo', state: 'ready', image: 'localhost/a:1' },
  { name: 'a-longer-name', state: 'starting', image: 'localhost/b:2' },
];
const columns = [
  { header: 'NAME', cell: (row: (typeof rows)[number]) => row.name },
  { header: 'STATE', cell: (row: (typeof rows)[number]) => row.state, tone: () => 'good' as const },
  { header: 'IMAGE', cell: (row: (typeof rows)[number]) => row.image, wide: true },
];

function printer(format: 'table' | 'wide' | 'json' | 'yaml', colour = false) {
  const stdout = new CapturedStream();
  const stderr = new CapturedStream();
  return { stdout, stderr, printer: new Printer({ format, colour, stdout, stderr }) };
}

describe('Printer', () => {
  it('prints aligned columns without borders, wide columns only with -o wide', () => {
    const table = printer('table');
    table.printer.list({ rows }, rows, columns);
    expect(table.stdout.text).toBe(
      'NAME            STATE\necho            ready\na-longer-name   starting\n',
    );
    const wide = printer('wide');
    wide.printer.list({ rows }, rows, columns);
    expect(wide.stdout.text.split('\n')[0]).toBe('NAME            STATE      IMAGE');
  });

  it('prints the raw document for json and yaml, and a note on stderr for an empty table', () => {
    const json = printer('json');
    json.printer.list({ rows }, rows, columns);
    expect(JSON.parse(json.stdout.text)).toEqual({ rows });
    const yaml = printer('yaml');
    yaml.printer.list({ rows: [] }, [], columns);
    expect(yaml.stdout.text).toBe('rows: []\n');
    const empty = printer('table');
    empty.printer.list({}, [], columns, 'No apps.');
    expect([empty.stdout.text, empty.stderr.text]).toEqual(['', 'No apps.\n']);
  });

  it('colours only when asked, and useColour asks only on a terminal without NO_COLOR', () => {
    const coloured = printer('table', true);
    coloured.printer.list({}, rows, columns);
    expect(coloured.stdout.text).toContain('\u001b[32mready');
    expect(useColour(new CapturedStream(true), {})).toBe(true);
    expect(useColour(new CapturedStream(true), { NO_COLOR: '' })).toBe(false);
    expect(useColour(new CapturedStream(true), { TERM: 'dumb' })).toBe(false);
    expect(useColour(new CapturedStream(false), {})).toBe(false);
  });
});

describe('format values', () => {
  it('parses durations and formats them back', () => {
    expect([
      parseDuration('500ms'),
      parseDuration('30s'),
      parseDuration('5m'),
      parseDuration('2h'),
      parseDuration('7'),
    ]).toEqual([500, 30_000, 300_000, 7_200_000, 7_000]);
    expect(parseDuration('soon')).toBeUndefined();
    expect([
      duration(45_000),
      duration(12 * 60_000),
      duration(190 * 60_000),
      duration(72 * 3_600_000),
    ]).toEqual(['45s', '12m', '3h10m', '3d']);
  });

  it('shows wei as ETH without rounding up', () => {
    expect(formatWei('0')).toBe('0 ETH');
    expect(formatWei('1500000000000000000')).toBe('1.5 ETH');
    expect(formatWei('1234567999999999')).toBe('0.001234 ETH');
  });
});
