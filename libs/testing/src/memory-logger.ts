import { pino, type Logger } from 'pino';

/** A pino logger whose JSON lines are kept in memory. */
export interface MemoryLogger {
  readonly logger: Logger;
  /** Every line written so far, as written. */
  lines(): string[];
  /** All lines joined, for "never appears in output" assertions. */
  text(): string;
}

/** A real pino logger (level `trace` unless given) writing to memory, for assertions on log output. */
export function createMemoryLogger(level: pino.LevelWithSilent = 'trace'): MemoryLogger {
  const lines: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(line) });
  return { logger, lines: () => [...lines], text: () => lines.join('') };
}
