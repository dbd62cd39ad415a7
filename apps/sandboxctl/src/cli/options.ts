import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../output/format-values';

/** `--timeout 5m`-style option values, in milliseconds. */
export function durationArgument(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0)
    throw new InvalidArgumentError('expected a duration such as 30s, 5m or 1h');
  return ms;
}

/** Collects a repeatable option's values. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
