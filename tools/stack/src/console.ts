import { styleText } from 'node:util';
import { prettyFactory } from 'pino-pretty';

/** Where the stack writes: its members' lines under their names, and its own. */
export interface StackConsole {
  member(name: string, line: string): void;
  say(message: string): void;
}

/** Options of {@link createStackConsole}. */
export interface StackConsoleOptions {
  write: (text: string) => void;
  /** Pretty-prints the members' JSON (pino) lines and colours the names; for a terminal only. */
  pretty: boolean;
}

const NAME_WIDTH = 18;
const STACK = 'stack';
type Colour = Parameters<typeof styleText>[0];
const PALETTE: Colour[] = [
  'cyan',
  'magenta',
  'yellow',
  'green',
  'blue',
  'redBright',
  'cyanBright',
  'magentaBright',
];

/**
 * The stack's console. Piped or redirected (`pretty` false) every line stays as the member printed it
 * (JSON for the services), behind a `name | ` prefix; on a terminal, pino lines become one readable
 * coloured line each (time, level, message, fields) and each member's name has its own colour.
 */
export function createStackConsole(options: StackConsoleOptions): StackConsole {
  const colours = new Map<string, Colour>();
  const colourOf = (name: string): Colour => {
    let colour = colours.get(name);
    if (colour === undefined) colours.set(name, (colour = PALETTE[colours.size % PALETTE.length] ?? 'cyan'));
    return colour;
  };
  const prettify = prettyFactory({
    colorize: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,svc,req,res,responseTime',
    // An access line in one short line: the message, then method, path, status and duration.
    messageFormat: (record, messageKey) => {
      const message = String(record[messageKey]);
      const req = record['req'] as { method?: string; url?: string } | undefined;
      const res = record['res'] as { statusCode?: number } | undefined;
      if (req === undefined) return message;
      return `${message} ${req.method} ${req.url} ${res?.statusCode ?? ''} ${record['responseTime'] ?? '?'}ms`;
    },
  });
  const prefix = (name: string) => {
    const padded = `${name.padEnd(NAME_WIDTH)}|`;
    if (!options.pretty) return padded;
    return name === STACK ? styleText('bold', padded) : styleText(colourOf(name), padded);
  };
  const format = (line: string) => (options.pretty && isPinoLine(line) ? prettify(line).trimEnd() : line);
  return {
    member: (name, line) => options.write(`${prefix(name)} ${format(line)}\n`),
    say: (message) => options.write(`${prefix(STACK)} ${message}\n`),
  };
}

function isPinoLine(line: string): boolean {
  if (!line.startsWith('{')) return false;
  try {
    const record = JSON.parse(line) as unknown;
    return typeof record === 'object' && record !== null && 'level' in record && 'msg' in record;
  } catch {
    return false;
  }
}
