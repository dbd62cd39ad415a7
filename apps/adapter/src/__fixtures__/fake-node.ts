// An in-memory Node for unit specs: the credential rules of POST /runners/heartbeat and unregister.
import { NodeRequestError, type HeartbeatCall, type RunnerClient } from '@sandbox/node-client';

export const BOOTSTRAP = 'bootstrap-secret-for-specs';

/** One call the fake received. */
export interface FakeCall {
  kind: 'heartbeat' | 'unregister';
  at: number;
  credential: string;
  runnerId: string;
  capacity?: number;
  timeoutMs: number;
}

/** A fake Node: runners by id with their credential and sessions; `fail` injects an error per call. */
export class FakeNode {
  readonly runners = new Map<string, { credential: string; sessions: string[] }>();
  readonly calls: FakeCall[] = [];
  fail: ((call: FakeCall) => NodeRequestError | undefined) | undefined;
  private issued = 0;

  constructor(private readonly now: () => number) {}

  /** Node restarted: every registration and session is gone. */
  restart(): void {
    this.runners.clear();
  }

  readonly client: RunnerClient = {
    heartbeat: async (call) => this.heartbeat(call),
    unregister: async (call) => {
      const record = this.record({
        kind: 'unregister',
        at: this.now(),
        credential: call.credential,
        runnerId: call.runnerId,
        timeoutMs: call.timeoutMs,
      });
      const runner = this.runners.get(call.runnerId);
      if (runner === undefined) return { outcome: 'unknown-runner', latencyMs: 1 };
      if (runner.credential !== record.credential)
        throw new NodeRequestError('http', 'invalid runner credential', { status: 401 });
      this.runners.delete(call.runnerId);
      return { outcome: 'unregistered', latencyMs: 1 };
    },
    stopSession: async () => ({ outcome: 'stopped', latencyMs: 1 }),
  };

  private record(call: FakeCall): FakeCall {
    this.calls.push(call);
    const error = this.fail?.(call);
    if (error !== undefined) throw error;
    return call;
  }

  private async heartbeat(call: HeartbeatCall) {
    const runnerId = call.body.runner_id ?? '';
    this.record({
      kind: 'heartbeat',
      at: this.now(),
      credential: call.credential,
      runnerId,
      capacity: call.body.capacity,
      timeoutMs: call.timeoutMs,
    });
    const unauthorized = () => new NodeRequestError('http', 'invalid runner credential', { status: 401 });
    let runner = this.runners.get(runnerId);
    let secret: string | undefined;
    if (runner === undefined) {
      if (call.credential !== BOOTSTRAP) throw unauthorized();
      this.issued += 1;
      secret = `credential-${String(this.issued).padStart(24, '0')}`;
      runner = { credential: secret, sessions: [] };
      this.runners.set(runnerId, runner);
    } else if (call.credential !== runner.credential) throw unauthorized();
    const response = {
      runner_id: runnerId,
      orchestrator: 'http://node.runner:8935',
      heartbeat_interval: '5s',
      heartbeat_ttl: '30s',
      session_ids: [...runner.sessions],
      ...(secret === undefined ? {} : { heartbeat_secret: secret }),
    };
    return { response, intervalMs: 5_000, ttlMs: 30_000, latencyMs: 2 };
  }
}
