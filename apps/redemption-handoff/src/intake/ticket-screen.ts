import {
  formatZodIssues,
  WinningTicketSchema,
  type TicketIntakeResult,
  type WinningTicket,
} from '@sandbox/protocol';
import { checkWinningTicket, type SignatureVerifier } from '@sandbox/tickets';
import type { TicketWindow, TicketWindows } from '../chain/ticket-window';

/** A ticket that passed every check, with its redemption window. */
export interface ScreenedTicket {
  readonly index: number;
  readonly ticket: WinningTicket;
  readonly window: TicketWindow;
}

/** The verdict on one element of a batch: a ticket to store, or its rejection. */
export type Screened =
  | { readonly kind: 'valid'; readonly value: ScreenedTicket }
  | { readonly kind: 'rejected'; readonly result: Extract<TicketIntakeResult, { status: 'rejected' }> };

/** Dependencies of {@link createTicketScreen}. */
export interface TicketScreenDeps {
  readonly verifier: SignatureVerifier;
  readonly windows: TicketWindows;
  /** When set, tickets paying anyone else are refused. */
  readonly recipient?: string;
}

const MAX_ISSUES = 50;

/**
 * Judges one element of a batch on its own: schema (field sizes and ranges), recipient, expiry against
 * the round view, then the contract's checks (hash, recipientRandHash, signature, win test). Reasons and
 * issues name fields and checks, never values.
 */
export function createTicketScreen(
  deps: TicketScreenDeps,
): (element: unknown, index: number, now: number) => Screened {
  return (element, index, now) => {
    const parsed = WinningTicketSchema.safeParse(element);
    if (!parsed.success) {
      const hash = hashOf(element);
      return {
        kind: 'rejected',
        result: {
          index,
          status: 'rejected',
          reason: 'malformed',
          ...(hash === undefined ? {} : { ticketHash: hash }),
          issues: formatZodIssues(parsed.error).slice(0, MAX_ISSUES),
        },
      };
    }
    const ticket = parsed.data;
    const reject = (reason: Extract<TicketIntakeResult, { status: 'rejected' }>['reason']): Screened => ({
      kind: 'rejected',
      result: { index, status: 'rejected', ticketHash: ticket.ticketHash, reason },
    });
    if (deps.recipient !== undefined && ticket.recipient !== deps.recipient)
      return reject('recipient_mismatch');
    const creationRound = BigInt(ticket.creationRound);
    if (deps.windows.isExpired(creationRound, now)) return reject('expired');
    const check = checkWinningTicket(ticket, deps.verifier);
    if (!check.ok) return reject(check.reason);
    return { kind: 'valid', value: { index, ticket, window: deps.windows.windowOf(creationRound, now) } };
  };
}

// A rejected ticket's hash is echoed only when it is well formed, so the caller can match it.
function hashOf(element: unknown): string | undefined {
  if (element === null || typeof element !== 'object') return undefined;
  const hash = (element as { ticketHash?: unknown }).ticketHash;
  return typeof hash === 'string' && /^0x[0-9a-f]{64}$/.test(hash) ? hash : undefined;
}
