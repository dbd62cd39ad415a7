import type { z } from 'zod';
import { checkShares } from '@sandbox/evaluation-report';
import { HashChallengeResponseSchema, type HashRateResultSchema } from '@sandbox/protocol';
import { counted, targetFault, targetPathFault } from '../run/faults';
import { answerFault, openCall, requestSignal, seedHex, type StepContext } from './plan';

export type HashRateResult = z.infer<typeof HashRateResultSchema>;

/** shares × 2^difficulty hashes over the verifier-measured time, with its relative standard error. */
export function hashRate(shares: number, difficultyBits: number, ms: number): HashRateResult {
  const seconds = Math.max(ms, 0.001) / 1000;
  return {
    shares,
    difficultyBits,
    seconds: Math.round(seconds * 1e6) / 1e6,
    hashesPerSecond: Math.round((shares * 2 ** difficultyBits) / seconds),
    relativeStdError: Math.round((1 / Math.sqrt(shares)) * 1e4) / 1e4,
  };
}

/**
 * The hash challenge: the responder finds `hashShares` shares bound to the seed and to this session;
 * each is checked with one hash. A single wrong, repeated or missing share fails the run.
 */
export async function measureHashRate(context: StepContext, timeoutMs: number): Promise<HashRateResult> {
  const { plan } = context;
  const call = await openCall(context, 'hash', '/v1/hash', 'POST');
  context.reliability.request();
  const started = context.now();
  let reply: Response;
  let answer: unknown;
  try {
    reply = await fetch(call.url, {
      method: 'POST',
      headers: { ...call.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        seed: seedHex(context),
        difficultyBits: plan.hashDifficultyBits,
        shares: plan.hashShares,
      }),
      signal: requestSignal(context, timeoutMs),
    });
    answer = await reply.json().catch(() => undefined);
  } catch (error) {
    throw counted(context.reliability, targetPathFault('hash', error));
  }
  const elapsed = context.now() - started;
  if (reply.status !== 200) throw counted(context.reliability, answerFault(call, 'hash', reply.status));
  const parsed = HashChallengeResponseSchema.safeParse(answer);
  if (!parsed.success)
    throw counted(context.reliability, targetFault('hash-bad-answer', 'invalid hash answer', 'other'));
  // A free single-shot call learns its session from the answer; a paid one from its challenge.
  const sessionId = call.sessionId ?? parsed.data.sessionId;
  if (parsed.data.sessionId !== sessionId)
    throw counted(
      context.reliability,
      targetFault('hash-wrong-session', 'shares are bound to another session', 'invalid-share'),
    );
  const check = checkShares(context.seed, sessionId, plan.hashDifficultyBits, parsed.data.counters);
  if (check.valid !== plan.hashShares || check.invalid > 0 || check.duplicates > 0)
    throw counted(
      context.reliability,
      targetFault('hash-invalid-shares', 'the responder returned invalid shares', 'invalid-share'),
    );
  return hashRate(check.valid, plan.hashDifficultyBits, elapsed);
}
