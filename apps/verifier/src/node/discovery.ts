import {
  DiscoveryResponseSchema,
  runnerIdFromDiscoveryUrl,
  type DiscoveryRunner,
  type EvaluationTarget,
} from '@sandbox/protocol';
import { nodeUnreachableFault, statusFault, targetFault, unknownFault } from '../run/faults';
import type { ReliabilityCounter } from '../run/reliability';

/** A runner of the target app (persistent or single-shot), as Node's discovery shows it. */
export interface DiscoveredRunner {
  orchestratorUrl: string;
  runnerId: string;
  runner: DiscoveryRunner;
}

/** Lists runners of the target's app (or exactly its runner) that have free capacity. */
export async function discoverRunners(
  nodeUrl: string,
  target: EvaluationTarget,
  deps: { timeoutMs: number; reliability: Pick<ReliabilityCounter, 'request' | 'fail'> },
): Promise<DiscoveredRunner[]> {
  deps.reliability.request();
  let reply: Response;
  try {
    reply = await fetch(`${nodeUrl}/discovery`, { signal: AbortSignal.timeout(deps.timeoutMs) });
  } catch (error) {
    const fault = nodeUnreachableFault(error);
    if (fault.failureKind) deps.reliability.fail(fault.failureKind);
    throw fault;
  }
  if (!reply.ok) {
    const fault = statusFault('discovery', reply.status);
    if (fault.failureKind) deps.reliability.fail(fault.failureKind);
    throw fault;
  }
  const parsed = DiscoveryResponseSchema.safeParse(await reply.json().catch(() => undefined));
  if (!parsed.success) throw targetFault('discovery-invalid', 'discovery answered an invalid body', 'other');
  const found: DiscoveredRunner[] = [];
  for (const entry of parsed.data) {
    for (const runner of entry.runners) {
      const runnerId = runnerIdFromDiscoveryUrl(runner.url);
      if (runner.app !== target.app || runnerId === undefined) continue;
      if (target.runnerId !== undefined && runnerId !== target.runnerId) continue;
      found.push({ orchestratorUrl: entry.address, runnerId, runner });
    }
  }
  return found;
}

/** The one runner a run measures: the requested one, or the first Node offers. */
export async function pickRunner(
  nodeUrl: string,
  target: EvaluationTarget,
  deps: { timeoutMs: number; reliability: Pick<ReliabilityCounter, 'request' | 'fail'> },
): Promise<DiscoveredRunner> {
  const runners = await discoverRunners(nodeUrl, target, deps);
  const [first] = runners;
  if (first) return first;
  if (target.runnerId !== undefined)
    throw targetFault('runner-not-offered', 'Node does not offer the runner (gone, full or not ready)');
  throw unknownFault('no-runner-offered', 'Node offers no runner of the app');
}
