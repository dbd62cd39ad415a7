import { randomInt } from 'node:crypto';
import { parseSeed } from './prng';

/** `npm run soak -- --minutes N [--seed S] [--report FILE]`. */
export interface SoakArgs {
  minutes: number;
  seed: number;
  /** Where the JSON report goes. @defaultValue .soak/report-<seed>-<start>.json */
  report?: string;
}

export const SOAK_USAGE = 'usage: npm run soak -- --minutes N [--seed S] [--report FILE]';

/** Parses the command line; a seed is drawn when none is given (and printed, so the run replays). */
export function parseSoakArgs(argv: readonly string[], drawSeed = () => randomInt(0, 2 ** 32)): SoakArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    if (!['--minutes', '--seed', '--report'].includes(flag))
      throw new Error(`unknown argument ${flag}; ${SOAK_USAGE}`);
    if (value === undefined || value.startsWith('--'))
      throw new Error(`${flag} needs a value; ${SOAK_USAGE}`);
    values.set(flag, value);
  }
  const minutesText = values.get('--minutes');
  if (minutesText === undefined) throw new Error(`--minutes is required; ${SOAK_USAGE}`);
  const minutes = Number(minutesText);
  if (!/^\d+(\.\d+)?$/.test(minutesText) || minutes <= 0 || minutes > 7 * 24 * 60)
    throw new Error(`--minutes must be a positive number of minutes (at most a week), not "${minutesText}"`);
  const seedText = values.get('--seed');
  const report = values.get('--report');
  return {
    minutes,
    seed: seedText === undefined ? drawSeed() : parseSeed(seedText),
    ...(report === undefined ? {} : { report }),
  };
}
