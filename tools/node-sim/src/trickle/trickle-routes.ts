import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeHeader, NodeLimits, TRICKLE_CLOSED_VALUE } from '@sandbox/protocol';
import { httpError } from '../http/respond';
import type { PathValues, Router } from '../http/router';
import type { Segment } from './segment';
import type { TrickleServer } from './trickle-server';
import { parseSeq } from './seq';
import { publishFromRequest } from './trickle-publish';

async function streamSegment(
  req: IncomingMessage,
  res: ServerResponse,
  segment: Segment,
  latest: number,
  mimeType: string,
): Promise<boolean> {
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  let position = 0;
  while (!gone.signal.aborted) {
    const chunk = segment.chunks[position];
    if (chunk) {
      if (position === 0) {
        if (segment.idx !== latest) res.setHeader(NodeHeader.TrickleLatest, String(latest));
        res.setHeader(NodeHeader.TrickleSeq, String(segment.idx));
        res.setHeader('Content-Type', mimeType);
        res.writeHead(200);
      }
      res.write(chunk);
      position += 1;
      continue;
    }
    if (segment.closed) return position > 0;
    await segment.changed(gone.signal);
  }
  return true;
}

/** `GET <channel>/<seq>`: the segment as it is written, 470 when evicted or too far ahead. */
async function getSegment(
  server: TrickleServer,
  req: IncomingMessage,
  res: ServerResponse,
  params: PathValues,
): Promise<void> {
  const stream = server.get(params.name ?? '');
  if (!stream) return httpError(res, 404, 'Stream not found');
  const idx = parseSeq(params.idx ?? '');
  if (idx === undefined || idx < -2) return httpError(res, 400, 'Invalid idx');
  const { segment, latest, closed } = stream.getForRead(idx);
  if (!segment) {
    res.setHeader(NodeHeader.TrickleLatest, String(latest));
    res.setHeader(NodeHeader.TrickleSeq, String(idx));
    if (closed) res.setHeader(NodeHeader.TrickleClosed, TRICKLE_CLOSED_VALUE);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.writeHead(closed ? 200 : NodeLimits.trickleSeqGoneStatus);
    return void res.end('Entry not found');
  }
  const wroteData = await streamSegment(req, res, segment, latest, stream.mimeType);
  if (wroteData) return void res.end();
  // Closed without data (evicted, or the channel closed while waiting).
  res.setHeader(NodeHeader.TrickleSeq, String(segment.idx));
  res.setHeader(NodeHeader.TrickleLatest, String(stream.nextWrite));
  if (stream.closed) res.setHeader(NodeHeader.TrickleClosed, TRICKLE_CLOSED_VALUE);
  res.writeHead(200);
  res.end();
}

function getNext(server: TrickleServer, res: ServerResponse, params: PathValues): void {
  const stream = server.get(params.name ?? '');
  if (!stream) return httpError(res, 404, 'Stream not found');
  const next = String(stream.nextWrite);
  res.setHeader(NodeHeader.TrickleLatest, next);
  if (stream.closed) res.setHeader(NodeHeader.TrickleClosed, TRICKLE_CLOSED_VALUE);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(next);
}

/**
 * Registers Node's trickle routes under `/ai/trickle/`. `beforeDelete` drops Node's ownership record
 * of a channel deleted over HTTP.
 */
export function addTrickleRoutes(
  router: Router,
  server: TrickleServer,
  beforeDelete: (name: string) => void,
): void {
  router
    .add('GET', '/ai/trickle/{name}/next', (_req, res, params) => getNext(server, res, params))
    .add('GET', '/ai/trickle/{name}/{idx}', (req, res, params) => getSegment(server, req, res, params))
    .add('POST', '/ai/trickle/{name}/{idx}', (req, res, params) =>
      publishFromRequest(server, req, res, params),
    )
    .add('DELETE', '/ai/trickle/{name}/{idx}', (_req, res, params) => {
      const stream = server.get(params.name ?? '');
      if (!stream) return httpError(res, 404, 'Stream not found');
      const idx = parseSeq(params.idx ?? '');
      if (idx === undefined || idx < 0) return httpError(res, 400, 'Invalid idx');
      const segment = stream.slots[idx % NodeLimits.trickleRetainedSegments];
      if (!segment || segment.idx !== idx) return httpError(res, 400, 'Nonexistent segment');
      segment.close();
      res.end();
    })
    .add('POST', '/ai/trickle/{name}', (_req, res, params) => {
      if (!server.get(params.name ?? '')) return httpError(res, 404, 'Stream not found');
      res.end();
    })
    .add('DELETE', '/ai/trickle/{name}', (_req, res, params) => {
      const name = params.name ?? '';
      beforeDelete(name);
      if (!server.close(name)) return httpError(res, 400, 'invalid stream');
      res.end();
    });
}
