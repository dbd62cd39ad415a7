import { KeystreamChecker } from '@sandbox/evaluation-report';
import { counted, targetFault, targetPathFault } from '../run/faults';
import { answerFault, openCall, requestSignal, seedHex, type StepContext } from './plan';
import { throughput, type ThroughputResult } from './throughput';

/**
 * Download, counted by the verifier as the receiver: one stream of the seed's keystream, every byte
 * checked; bytes of the first `warmupSeconds` are left out, then bytes are counted for
 * `transferSeconds` (or up to `maxTransferBytes`) and the stream is cut.
 */
export async function measureDownload(context: StepContext): Promise<ThroughputResult> {
  const { plan } = context;
  const call = await openCall(context, 'download', '/v1/download', 'POST');
  const stop = new AbortController();
  const signal = AbortSignal.any([
    requestSignal(context, context.requestTimeoutMs + totalMs(context)),
    stop.signal,
  ]);
  context.reliability.request();
  const checker = new KeystreamChecker(context.seed, 'download');
  let reply: Response;
  try {
    reply = await fetch(call.url, {
      method: 'POST',
      headers: { ...call.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ seed: seedHex(context), bytes: plan.maxTransferBytes }),
      signal,
    });
  } catch (error) {
    throw counted(context.reliability, targetPathFault('download', error));
  }
  if (reply.status !== 200 || !reply.body)
    throw counted(context.reliability, answerFault(call, 'download', reply.status));
  const started = context.now();
  const warmupEnd = started + plan.warmupSeconds * 1000;
  const end = warmupEnd + plan.transferSeconds * 1000;
  let mark: { at: number; bytes: number } | undefined =
    plan.warmupSeconds === 0 ? { at: started, bytes: 0 } : undefined;
  let last = { at: started, bytes: 0 };
  const reader = reply.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!checker.check(value))
        throw targetFault(
          'download-corrupt',
          'downloaded bytes differ from the seed stream',
          'corrupt-bytes',
        );
      last = { at: context.now(), bytes: checker.bytes };
      if (!mark && last.at >= warmupEnd) mark = last;
      if (last.at >= end) break;
    }
  } catch (error) {
    throw counted(context.reliability, targetPathFault('download', error));
  } finally {
    stop.abort();
    await reader.cancel().catch(() => undefined);
  }
  const complete = checker.bytes === plan.maxTransferBytes;
  if (last.at < end && !complete)
    throw counted(
      context.reliability,
      targetFault('download-truncated', 'the download ended early', 'reset'),
    );
  if (!mark || last.at <= mark.at)
    throw counted(
      context.reliability,
      targetFault('download-too-short', 'no bytes arrived after the warm-up', 'other'),
    );
  return throughput(last.bytes - mark.bytes, last.at - mark.at, mark.bytes);
}

function totalMs(context: StepContext): number {
  return (context.plan.warmupSeconds + context.plan.transferSeconds) * 1000;
}
