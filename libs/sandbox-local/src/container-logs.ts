/** One line an instance wrote, as podman kept it. */
export interface LogLine {
  /** RFC 3339 timestamp with nanoseconds, as podman recorded it. */
  time: string;
  stream: 'stdout' | 'stderr';
  text: string;
}

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d) (.*)$/;

interface Parsed extends LogLine {
  epochMs: number;
  nanos: number;
  order: number;
}

function parseStream(output: string, stream: LogLine['stream'], offset: number): Parsed[] {
  const lines = output.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.flatMap((line, index) => {
    const match = STAMP.exec(line);
    if (!match) return [];
    const [, base = '', fraction = '', zone = '', text = ''] = match;
    const time = line.slice(0, line.length - text.length - 1);
    return [
      {
        time,
        stream,
        text,
        epochMs: Date.parse(`${base}${zone}`),
        nanos: Number(fraction.padEnd(9, '0')),
        order: offset + index,
      },
    ];
  });
}

/**
 * Merges the stdout and stderr halves of `podman logs --timestamps` into one list in time order.
 * Timestamps are compared as numbers: podman trims trailing zeros from the fraction, so the strings
 * do not sort.
 */
export function mergeTimestampedLogs(stdout: string, stderr: string): LogLine[] {
  const out = parseStream(stdout, 'stdout', 0);
  const err = parseStream(stderr, 'stderr', out.length);
  return [...out, ...err]
    .sort((a, b) => a.epochMs - b.epochMs || a.nanos - b.nanos || a.order - b.order)
    .map(({ time, stream, text }) => ({ time, stream, text }));
}
