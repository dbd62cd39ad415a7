import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RedemptionOutcomeKind, WinningTicket } from '@sandbox/protocol';
import type { SimTicket } from './sim-store';

/** A row as node:sqlite returns it. */
export type Row = Record<string, string | number | null>;

export function toSimTicket(row: Row): SimTicket {
  return {
    ticket: JSON.parse(row.ticket as string) as WinningTicket,
    receivedAt: Number(row.received_at),
    deliveries: Number(row.deliveries),
    submissions: Number(row.submissions),
    outcome: (row.outcome ?? undefined) as RedemptionOutcomeKind | undefined,
  };
}

/** The file holds ticket secrets: owner-only, in an owner-only folder (as Node's payment database). */
export function prepareFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
}
