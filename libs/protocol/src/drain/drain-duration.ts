import { z } from 'zod';
import { parseGoDurationMs } from '../node/go-duration';

/** The longest drain window: Node's sessions are held at most this long for an upgrade. */
export const MAX_DRAIN_WINDOW_MS = 12 * 3_600_000;

// ISO 8601 durations of days and time only (`PT6H`, `P0DT30M`, `PT1.5H`): years and months have no fixed length.
const ISO_DURATION =
  /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/u;
const ISO_UNITS_MS = [86_400_000, 3_600_000, 60_000, 1_000] as const;

/** Parses an ISO 8601 day-time duration (`PT6H`) into milliseconds; `undefined` when invalid. */
export function parseIsoDurationMs(text: string): number | undefined {
  const match = ISO_DURATION.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const parts = match.slice(1);
  if (parts.every((part) => part === undefined)) return undefined;
  return parts.reduce((total, part, index) => total + Number(part ?? 0) * (ISO_UNITS_MS[index] ?? 0), 0);
}

/** A Go (`6h`, `90m`, `1h30m`) or ISO 8601 (`PT6H`) duration in milliseconds; `undefined` when neither. */
export function parseDrainDurationMs(text: string): number | undefined {
  const ms = text.startsWith('P') ? parseIsoDurationMs(text) : parseGoDurationMs(text);
  return ms === undefined ? undefined : Math.round(ms);
}

/**
 * A duration string, Go or ISO 8601, parsed to whole milliseconds within `[minMs, maxMs]`.
 * Returns a new schema each call.
 */
export function drainDurationSchema(minMs: number, maxMs: number) {
  return z
    .string()
    .max(64)
    .transform((text, context) => {
      const ms = parseDrainDurationMs(text);
      if (ms === undefined) {
        context.addIssue({
          code: 'custom',
          message: 'must be a Go ("6h", "90m") or ISO 8601 ("PT6H") duration',
        });
        return z.NEVER;
      }
      if (ms < minMs || ms > maxMs) {
        context.addIssue({ code: 'custom', message: `must be between ${minMs} ms and ${maxMs} ms` });
        return z.NEVER;
      }
      return ms;
    });
}

/** A drain window: positive, at most 12 hours. */
export const DrainWindowSchema = drainDurationSchema(1, MAX_DRAIN_WINDOW_MS);
