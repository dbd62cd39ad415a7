import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeHeader } from '@sandbox/protocol';
import { httpError } from '../http/respond';
import type { PathValues } from '../http/router';
import { parseSeq } from './seq';
import type { TrickleServer } from './trickle-server';

/**
 * `POST <channel>/<seq>`: a publisher streams one segment; subscribers receive it as it arrives.
 * The segment ends with the request body (or when evicted); 413 beyond 10 MB.
 */
export async function publishFromRequest(
  server: TrickleServer,
  req: IncomingMessage,
  res: ServerResponse,
  params: PathValues,
): Promise<void> {
  const stream = server.get(params.name ?? '');
  if (!stream) {
    res.setHeader('Connection', 'close');
    return httpError(res, 404, 'Stream not found');
  }
  const idx = parseSeq(params.idx ?? '');
  if (idx === undefined || idx < -1) return httpError(res, 400, 'Invalid idx');
  const { segment } = stream.getForWrite(idx);
  if (req.headers['lp-trickle-reset'] !== undefined) {
    // A restarted publisher: unblock subscribers of earlier segments.
    for (const other of stream.slots) if (other && other.idx < segment.idx) other.close();
  }
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (segment.closed) break;
    if (total === 0) stream.markWritten(segment.idx);
    total += chunk.length;
    if (!segment.write(chunk)) {
      segment.close();
      res.setHeader('Connection', 'close');
      res.setHeader(NodeHeader.TrickleSeq, String(segment.idx));
      return httpError(res, 413, 'segment exceeds maximum size');
    }
  }
  if (total === 0) stream.markWritten(segment.idx);
  res.setHeader(NodeHeader.TrickleSeq, String(segment.idx));
  segment.close();
  res.end();
}
