import type { IncomingMessage, ServerResponse } from 'node:http';
import { findShares } from '@sandbox/evaluation-report';
import { HashChallengeRequestSchema } from '@sandbox/protocol';
import { nodeSessionId, readJson, sendJson } from '../http-io';

/**
 * `POST /v1/hash`: finds shares bound to the seed and to the session id Node injected, on one core,
 * and gives up as soon as the client disconnects.
 */
export async function handleHash(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const sessionId = nodeSessionId(req);
  const request = await readJson(req, HashChallengeRequestSchema);
  const { counters } = await findShares({
    seed: Buffer.from(request.seed, 'hex'),
    sessionId,
    difficultyBits: request.difficultyBits,
    shares: request.shares,
    shouldStop: () => res.destroyed,
  });
  if (!res.destroyed) sendJson(res, 200, { sessionId, counters });
}
