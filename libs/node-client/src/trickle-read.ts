import { NodeHeader, NodeLimits } from '@sandbox/protocol';
import type { HttpTransport } from './http-transport';

/** What one long-poll of a trickle channel came to. */
export type TrickleReadOutcome =
  /** A segment with data: `seq` is the one Node served. */
  | { type: 'segment'; seq: number; text: string }
  /** No data here: continue at `seq` (`gap` when segments were lost: a 470). */
  | { type: 'move'; seq: number; gap: boolean }
  /** The channel is over: unknown (404) or closed by Node. */
  | { type: 'end'; reason: 'gone' | 'closed' }
  /** Try the same read again later (an unexpected status, or a 470 without a usable position). */
  | { type: 'retry'; status: number };

function headerInt(header: (name: string) => string | undefined, name: string): number | undefined {
  const value = header(name)?.trim();
  return value !== undefined && /^-?\d{1,15}$/u.test(value) ? Number(value) : undefined;
}

/**
 * `GET <channel>/<seq>` once, reading the whole segment. Node answers 200 with the segment (headers
 * `Lp-Trickle-Seq`, and `Lp-Trickle-Latest` when behind); 470 when the segment was evicted or is too
 * far ahead (resume from `Lp-Trickle-Latest`); 404 for an unknown channel; and `Lp-Trickle-Closed`
 * once the channel is closed. Rejects on transport errors and when `signal` aborts.
 */
export async function readTrickleSegment(
  transport: HttpTransport,
  channelUrl: string,
  seq: number,
  signal: AbortSignal,
): Promise<TrickleReadOutcome> {
  const response = await transport({ method: 'GET', url: `${channelUrl}/${seq}`, signal });
  const { text } = response;
  const latest = headerInt(response.header, NodeHeader.TrickleLatest);
  if (response.status === 404) return { type: 'end', reason: 'gone' };
  if (response.header(NodeHeader.TrickleClosed) !== undefined) return { type: 'end', reason: 'closed' };
  if (response.status === NodeLimits.trickleSeqGoneStatus) {
    // Without a usable position, retrying at once would spin: the caller backs off instead.
    if (latest === undefined || latest === seq) return { type: 'retry', status: response.status };
    return { type: 'move', seq: latest, gap: true };
  }
  if (response.status !== 200) return { type: 'retry', status: response.status };
  const served = headerInt(response.header, NodeHeader.TrickleSeq) ?? seq;
  // A segment closed without data was skipped by the publisher: move on.
  if (text === '') return { type: 'move', seq: Math.max(served + 1, latest ?? 0), gap: false };
  return { type: 'segment', seq: served, text };
}
