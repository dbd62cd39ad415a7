import type {
  AdapterDrainStatus,
  InstanceGone,
  InstanceReady,
  InstanceWithdraw,
  RunnerState,
  RunnerView,
  RunnersQuery,
} from '@sandbox/protocol';
import type { RunnerCounts } from '../metrics/adapter-metrics';
import type { RegistrationStore } from './state/registration-store';
import { OPEN_DRAIN, type RegistrationRecord } from './state/registration-record';
import { RunnerAgent, type AgentDeps } from './agent/runner-agent';
import { runnerIdForInstance } from './node/runner-id';

/** Dependencies of {@link RunnerManager}. */
export interface ManagerDeps extends Omit<AgentDeps, 'drainMode' | 'save' | 'erase'> {
  store: RegistrationStore;
}

/** Every registration of this adapter, and the drain mode they all follow. */
export class RunnerManager {
  private readonly agents = new Map<string, RunnerAgent>();
  private drain: AdapterDrainStatus = OPEN_DRAIN;
  private readonly agentDeps: AgentDeps;

  constructor(private readonly deps: ManagerDeps) {
    this.agentDeps = {
      ...deps,
      drainMode: () => this.drain.mode,
      save: (record) => deps.store.save(record),
      erase: (instanceId) => deps.store.remove(instanceId),
    };
  }

  /** Restores the saved registrations (no re-registration: saved credentials are used as they are). */
  async load(): Promise<number> {
    this.drain = await this.deps.store.loadDrain();
    const records = await this.deps.store.loadAll();
    for (const record of records) this.startAgent(record, true);
    this.deps.logger.info(
      { registrations: records.length, drain: this.drain.mode },
      'registrations restored',
    );
    return records.length;
  }

  get drainStatus(): AdapterDrainStatus {
    return this.drain;
  }

  /** Sets the drain mode (saved first) and lets every registration follow it. */
  async setDrain(status: AdapterDrainStatus): Promise<void> {
    await this.deps.store.saveDrain(status);
    this.drain = status;
    for (const agent of this.agents.values()) agent.poke();
  }

  /** `instance-ready`: one registration per instance (a repeated event changes nothing). */
  async addInstance(ready: InstanceReady): Promise<void> {
    if (this.agents.has(ready.instanceId)) return;
    const record: RegistrationRecord = {
      version: 1,
      instance: ready,
      runnerId: runnerIdForInstance(ready.instanceId),
      phase: 'active',
      withdrawal: null,
      failure: null,
      node: null,
      sessions: [],
      pendingReleases: [],
      registeredOnce: false,
    };
    const agent = this.startAgent(record, false);
    await agent.persist();
  }

  /** `instance-withdraw`; an unknown instance is acknowledged at once (nothing of it is at Node). */
  async withdrawInstance(request: InstanceWithdraw): Promise<void> {
    const at = new Date(this.deps.now()).toISOString();
    const agent = this.agents.get(request.instanceId);
    if (agent !== undefined) return agent.withdraw(request, at);
    const runnerId = runnerIdForInstance(request.instanceId);
    await this.deps.publisher.withdrawn({ instanceId: request.instanceId, runnerId, at });
  }

  /** `instance-gone`: unregister if still registered and forget the instance. */
  async removeInstance(gone: InstanceGone): Promise<void> {
    const agent = this.agents.get(gone.instanceId);
    if (agent === undefined) {
      await this.deps.store.remove(gone.instanceId);
      return;
    }
    await agent.retire();
    this.agents.delete(gone.instanceId);
  }

  /** Registrations a drain command applies to (withdrawn and failed ones are finished). */
  commandable(): RunnerAgent[] {
    return [...this.agents.values()].filter((agent) => agent.record.phase === 'active');
  }

  list(query: RunnersQuery = {}): RunnerView[] {
    return [...this.agents.values()]
      .map((agent) => agent.view())
      .filter(
        (view) =>
          (query.state === undefined || view.state === query.state) &&
          (query.app === undefined || view.app === query.app),
      )
      .sort((a, b) => a.instanceId.localeCompare(b.instanceId));
  }

  get(instanceId: string): RunnerView | undefined {
    return this.agents.get(instanceId)?.view();
  }

  counts(): RunnerCounts {
    const byState: Partial<Record<RunnerState, number>> = {};
    let registered = 0;
    let o2rConnected = 0;
    let o2rFollowed = 0;
    const failures: RunnerCounts['failures'] = [];
    for (const agent of this.agents.values()) {
      const { state, failure } = agent.view();
      byState[state] = (byState[state] ?? 0) + 1;
      if (agent.record.node !== null) registered += 1;
      if (agent.record.node !== null && agent.link.o2r.subscriber !== undefined) o2rFollowed += 1;
      if (agent.link.o2r.connected) o2rConnected += 1;
      if (state === 'failed' && failure != null)
        failures.push({ status: failure.status, reason: failure.reason });
    }
    return {
      byState,
      registered,
      o2rConnected,
      o2rFollowed,
      o2rUnfollowed: registered - o2rFollowed,
      failures,
    };
  }

  /** Stops heartbeats and O2R without touching Node: a restarted adapter resumes the registrations. */
  async stop(): Promise<void> {
    await this.deps.scheduler.stop();
    await Promise.all([...this.agents.values()].map((agent) => agent.shutdown()));
  }

  private startAgent(record: RegistrationRecord, restored: boolean): RunnerAgent {
    const agent = new RunnerAgent(this.agentDeps, record);
    this.agents.set(record.instance.instanceId, agent);
    agent.start(restored);
    return agent;
  }
}
