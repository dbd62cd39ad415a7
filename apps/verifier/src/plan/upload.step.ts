import { createHash } from 'node:crypto';
import { Keystream } from '@sandbox/evaluation-report';
import { UploadResultSchema } from '@sandbox/protocol';
import { counted, targetFault, targetPathFault } from '../run/faults';
import { answerFault, openCall, requestSignal, type StepContext } from './plan';
import { throughput, type ThroughputResult } from './throughput';

const CHUNK_BYTES = 64 * 1024;

/** One upload of keystream bytes for `ms` (or `maxBytes`); resolves with what the receiver confirmed. */
async function uploadFor(
  context: StepContext,
  stream: Keystream,
  ms: number,
  maxBytes: number,
): Promise<{ bytes: number; elapsedMs: number }> {
  const call = await openCall(context, 'upload', '/v1/upload', 'POST');
  const digest = createHash('sha256');
  let sent = 0;
  let deadline = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= maxBytes || context.now() >= deadline) return controller.close();
      const chunk = stream.next(Math.min(CHUNK_BYTES, maxBytes - sent));
      digest.update(chunk);
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  context.reliability.request();
  const started = context.now();
  deadline = started + ms;
  let reply: Response;
  let answer: unknown;
  try {
    reply = await fetch(call.url, {
      method: 'POST',
      headers: { ...call.headers, 'content-type': 'application/octet-stream' },
      body,
      duplex: 'half',
      signal: requestSignal(context, context.requestTimeoutMs + ms),
    } as RequestInit);
    answer = await reply.json().catch(() => undefined);
  } catch (error) {
    throw counted(context.reliability, targetPathFault('upload', error));
  }
  const elapsedMs = context.now() - started;
  if (reply.status !== 200) throw counted(context.reliability, answerFault(call, 'upload', reply.status));
  const parsed = UploadResultSchema.safeParse(answer);
  if (!parsed.success)
    throw counted(context.reliability, targetFault('upload-bad-answer', 'invalid upload answer', 'other'));
  if (parsed.data.bytes !== sent || parsed.data.sha256 !== digest.digest('hex'))
    throw counted(
      context.reliability,
      targetFault('upload-corrupt', 'the receiver did not get the bytes sent', 'corrupt-bytes'),
    );
  return { bytes: parsed.data.bytes, elapsedMs };
}

/**
 * Upload, counted by the receiver: a warm-up upload (left out), then one upload of `transferSeconds`
 * on the same connection (two paid calls on a single-shot runner), whose byte count and digest the responder confirms. Time runs on the
 * verifier from the first byte offered to the receiver's answer.
 */
export async function measureUpload(context: StepContext): Promise<ThroughputResult> {
  const { plan } = context;
  const stream = new Keystream(context.seed, 'upload');
  let warmupBytes = 0;
  if (plan.warmupSeconds > 0)
    warmupBytes = (await uploadFor(context, stream, plan.warmupSeconds * 1000, plan.maxTransferBytes)).bytes;
  const measured = await uploadFor(context, stream, plan.transferSeconds * 1000, plan.maxTransferBytes);
  return throughput(measured.bytes, measured.elapsedMs, warmupBytes);
}
