import { describe, expect, it } from '@jest/globals';
import { roundTicketWindows, fixedTicketWindows } from './ticket-window';

describe('roundTicketWindows', () => {
  const windows = roundTicketWindows({ blockMs: 10, roundBlocks: 100, genesisMs: 5_000, validityRounds: 2 });

  it('opens a window at the creation round and closes it validityRounds later', () => {
    expect(windows.windowOf(3n, 0)).toEqual({ startMs: 8_000, deadlineMs: 10_000 });
  });

  it('calls a ticket expired once creationRound + validity <= current round, as the contract does', () => {
    // Round 4 spans [9000, 10000): a round-3 ticket is still valid there, not from round 5 on.
    expect(windows.isExpired(3n, 9_999)).toBe(false);
    expect(windows.isExpired(3n, 10_000)).toBe(true);
    expect(windows.isExpired(3n, 0)).toBe(false);
  });

  it('saturates the window of absurd rounds instead of overflowing', () => {
    expect(windows.windowOf(1n << 200n, 0).deadlineMs).toBe(Number.MAX_SAFE_INTEGER);
    expect(windows.isExpired(1n << 200n, Date.now())).toBe(false);
  });
});

describe('fixedTicketWindows', () => {
  it('never expires at intake and gives a fixed window from receipt', () => {
    const windows = fixedTicketWindows(1_000);
    expect(windows.isExpired(0n, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(windows.windowOf(99n, 500)).toEqual({ startMs: 500, deadlineMs: 1_500 });
  });
});
