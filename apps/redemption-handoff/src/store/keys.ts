import type { TicketState } from '@sandbox/protocol';

/**
 * Redis keys of the ticket records under one prefix. Persistent: renaming any of them strands every
 * stored ticket. The Lua scripts build the same names from the prefix.
 */
export interface TicketKeys {
  readonly prefix: string;
  /** HASH: one ticket record (the ticket JSON with its secrets, state, timestamps). */
  record(hash: string): string;
  /** ZSET hash → receivedAt: the tickets in one state. */
  state(state: TicketState): string;
  /** ZSET hash → receivedAt: every ticket. */
  readonly all: string;
  /** ZSET hash → deadline: tickets still owed a delivery (received, delivering). */
  readonly due: string;
  /** SET: non-terminal tickets of one payer. */
  payer(sender: string): string;
  /** SET: payers with non-terminal tickets. */
  readonly payers: string;
  /** ZSET hash → terminalAt: terminal tickets, for retention. */
  readonly terminal: string;
  /** STRING: the last redeemer outcome `seq` applied. */
  readonly outcomeCursor: string;
}

export function ticketKeys(prefix: string): TicketKeys {
  return {
    prefix,
    record: (hash) => `${prefix}:t:${hash}`,
    state: (state) => `${prefix}:state:${state}`,
    all: `${prefix}:all`,
    due: `${prefix}:due`,
    payer: (sender) => `${prefix}:payer:${sender}`,
    payers: `${prefix}:payers`,
    terminal: `${prefix}:terminal`,
    outcomeCursor: `${prefix}:outcome-cursor`,
  };
}
