// Planned Node upgrades on the cluster: a drain that ends as soon as its last session ends (it reads
// sessions from the adapter's sessions view in Redis, so a view it cannot read would hold it to its
// deadline), and one that keeps an SSE session to its deadline. Each replaces Node exactly once.
import { waitFor } from '@sandbox/testing';
import { check, expectEqual, expectTrue, type Log } from './check';
import { followDrain, readDrain, startDrain } from './drain';
import { SYSTEM_NAMESPACE } from './install';
import type { Kubectl } from './kubectl';
import { finishSdkClient, startSdkClient, waitForSdkStep, type SdkStep } from './sdk-client-pod';
import type { SystemContext } from './system-checks';
import { waitForRunners } from './system-flow';

/** Node's Deployment revision: one more per rollout. */
async function nodeRevision(kubectl: Kubectl): Promise<number> {
  const node = await kubectl.json<{ metadata: { annotations?: Record<string, string> } }>([
    '-n',
    SYSTEM_NAMESPACE,
    'get',
    'deployment',
    'livepeer-node',
  ]);
  return Number(node.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? NaN);
}

const stepNames = (steps: readonly SdkStep[]) => steps.map((s) => s.step);
const secondsField = (step: SdkStep | undefined, field: string) => Number(step?.[field] ?? NaN) * 1000;

/** Runs both drains; `context.nodeUrl` is refreshed after each (Node's pod is new). */
export async function drainChecks(context: SystemContext, log: Log): Promise<void> {
  const kubectl = context.provider.kubectl;
  const url = await context.provider.serviceUrl(SYSTEM_NAMESPACE, 'drain-controller', 7103);
  const token = await kubectl.secretValue(SYSTEM_NAMESPACE, 'drain-controller-api-tokens', 'admin');
  const hold = async (pod: string, holdSeconds: number) => {
    await startSdkClient(kubectl, { app: 'echo', image: context.images.client, pod, holdSeconds });
    await waitForSdkStep(kubectl, pod, 'streaming');
  };
  const nodeBack = async () => {
    context.nodeUrl = await context.provider.serviceUrl(SYSTEM_NAMESPACE, 'livepeer-node', 8935);
    await waitForRunners(context.nodeUrl, 'echo', 1);
  };

  // A 10-minute window, one session that its client stops after 30 s.
  let revision = await nodeRevision(kubectl);
  await hold('sdk-hold-early', 30);
  const early = await startDrain(url, token, '10m');
  await waitFor(async () => (await readDrain(url, token, early.id)).sessions?.total === 1, {
    description: "the drain to count the open session (from the adapter's sessions view)",
    timeoutMs: 60_000,
  });
  const earlyEnd = (await followDrain(url, token, early.id, 5 * 60_000)).at(-1);
  const earlyClient = await finishSdkClient(kubectl, 'sdk-hold-early');
  check(log, 'a drain ends as soon as its last session ends (10 min window)', [
    ...expectEqual('phase', earlyEnd?.phase, 'done'),
    ...expectTrue(
      `finished ${earlyEnd?.finishedAt} before its deadline ${earlyEnd?.deadline}`,
      Date.parse(earlyEnd?.finishedAt ?? '') < Date.parse(earlyEnd?.deadline ?? ''),
    ),
    ...expectEqual('client steps', stepNames(earlyClient.steps), [
      'reserved',
      'streaming',
      'stream-ended',
      'stopped',
    ]),
    ...expectEqual('Node rollouts', (await nodeRevision(kubectl)) - revision, 1),
  ]);
  await nodeBack();
  log('ok   the replaced Node has the runners registered again');

  // A 45 s window and a session held longer: it streams to the deadline, then is cut.
  revision = await nodeRevision(kubectl);
  await hold('sdk-hold-deadline', 600);
  const late = await startDrain(url, token, '45s');
  const lateEnd = (await followDrain(url, token, late.id, 5 * 60_000)).at(-1);
  const lateClient = await finishSdkClient(kubectl, 'sdk-hold-deadline', 120_000);
  const ended = lateClient.steps.find((s) => s.step === 'stream-ended');
  const deadline = Date.parse(lateEnd?.deadline ?? '');
  check(log, 'a drain keeps an SSE session to its deadline (45 s window), then replaces Node', [
    ...expectEqual('phase', lateEnd?.phase, 'done'),
    ...expectTrue(
      `history passes cancelling: ${lateEnd?.history.map((h) => h.phase).join(' → ')}`,
      lateEnd?.history.some((h) => h.phase === 'cancelling') === true,
    ),
    // Events every 250 ms: the last one within 2 s of the deadline means the stream lived to it.
    ...expectTrue(
      `last event ${secondsField(ended, 'last_event_at') - deadline} ms from the deadline`,
      secondsField(ended, 'last_event_at') >= deadline - 2_000,
    ),
    ...expectTrue(
      `stream ended ${secondsField(ended, 'ended_at') - deadline} ms from the deadline`,
      secondsField(ended, 'ended_at') >= deadline - 1_000,
    ),
    ...expectEqual('Node rollouts', (await nodeRevision(kubectl)) - revision, 1),
  ]);
  await nodeBack();
  log('ok   the replaced Node has the runners registered again');
}
