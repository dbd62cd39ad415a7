import { failureLabel, isNodeRequestError } from '@sandbox/node-client';
import type { RunnerError } from '@sandbox/protocol';
import type { Logger } from 'pino';
import type { AdapterMetrics, NodeCallKind } from '../../metrics/adapter-metrics';

/** The outcome of a successful registration or heartbeat. */
export interface BeatOutcome {
  at: number;
  latencyMs: number;
  /** The capacity that call advertised. */
  capacity: number;
}

/** One runner's call history with Node: last success, last failure, failures in a row. */
export class CallStats {
  lastBeat: BeatOutcome | undefined;
  lastError: RunnerError | undefined;
  /** Failed calls in a row (also counts reports to instance-manager that could not be published). */
  failures = 0;

  constructor(private readonly deps: { now: () => number; metrics: AdapterMetrics; logger: Logger }) {}

  succeeded(kind: NodeCallKind, latencyMs: number, capacity?: number): void {
    this.failures = 0;
    if (capacity !== undefined) this.lastBeat = { at: this.deps.now(), latencyMs, capacity };
    this.deps.metrics.nodeCall(kind, latencyMs / 1_000);
  }

  failed(kind: NodeCallKind | 'report', error: unknown): void {
    this.failures += 1;
    const nodeError = isNodeRequestError(error) ? error : undefined;
    if (kind !== 'report') {
      this.lastError = {
        kind: nodeError?.kind ?? 'network',
        ...(nodeError?.status === undefined ? {} : { status: nodeError.status }),
        message: nodeError?.reason ?? 'internal error',
        at: new Date(this.deps.now()).toISOString(),
        consecutive: this.failures,
      };
      this.deps.metrics.nodeFailure(kind, failureLabel(error));
    }
    // The first failure and then every power of two: an outage does not flood the log.
    if ((this.failures & (this.failures - 1)) === 0) {
      this.deps.logger.warn({ err: error, call: kind, consecutive: this.failures }, 'call failed');
    }
  }
}
