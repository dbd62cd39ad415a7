import { TicketListResponseSchema, TicketStateSchema } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';

/**
 * Counts the handoff's tickets by state through its API (every page of `GET /v1/winning-tickets`),
 * after waiting for the outcomes it still has to poll. States with no ticket are left out.
 */
export async function readTicketStates(
  handoff: { handoffUrl: string; readHeaders: Record<string, string> },
  settleMs = 60_000,
): Promise<Record<string, number>> {
  const count = async (): Promise<Record<string, number>> => {
    const counts: Record<string, number> = {};
    for (const state of TicketStateSchema.options) {
      let cursor: string | undefined = '0';
      while (cursor !== undefined) {
        const response = await fetch(
          `${handoff.handoffUrl}/v1/winning-tickets?state=${state}&limit=500&cursor=${cursor}`,
          { headers: handoff.readHeaders },
        );
        const page = TicketListResponseSchema.parse(await response.json());
        if (page.tickets.length > 0) counts[state] = (counts[state] ?? 0) + page.tickets.length;
        cursor = page.nextCursor;
      }
    }
    return counts;
  };
  let last: Record<string, number> = {};
  await waitFor(
    async () => {
      last = await count();
      return Object.keys(last).every((state) =>
        ['redeemed', 'already_used', 'expired', 'rejected', 'expired_undelivered'].includes(state),
      );
    },
    { description: 'the handoff to record every outcome', timeoutMs: settleMs, intervalMs: 500 },
  ).catch(() => undefined);
  return last;
}
