import type { Logger } from 'pino';
import type { CommandRunner } from './command-runner';
import type { Firewall } from './firewall';
import type { ForwardingLedger } from './forwarding-ledger';
import type { HostNetwork } from './host-network';
import { endNamespaceProcesses } from './namespace-processes';
import { instanceChains, instanceNames } from './naming';
import type { Podman } from './podman';
import { LABEL } from './podman-args';

interface StopperDeps {
  prefix: string;
  run: CommandRunner;
  podman: Podman;
  network: HostNetwork;
  firewall: Firewall;
  ledger: ForwardingLedger;
  /** Ids of instances being started or stopped; the integrity guard leaves them alone. */
  busy: Set<string>;
  /** Instances with egress `internet` being started: they still need the uplink's forwarding. */
  startingInternet: ReadonlySet<string>;
  logger: Logger;
  stopTimeoutSeconds: number;
}

/** The destroy of single instances: container, sandbox processes, rules, network, forwarding. */
export function createStopper(deps: StopperDeps) {
  /** Puts the uplink's forwarding back once no other instance with egress `internet` runs or starts. */
  async function releaseForwarding(stopped: string): Promise<void> {
    if ([...deps.startingInternet].some((id) => id !== stopped)) return;
    const others = await deps.podman.list(deps.prefix);
    const needed = others.some(
      (entry) => entry.labels[LABEL.egress] === 'internet' && entry.labels[LABEL.instance] !== stopped,
    );
    if (!needed) await deps.ledger.release();
  }

  async function removeAll(instanceId: string): Promise<void> {
    const names = instanceNames(deps.prefix, instanceId);
    const failures: unknown[] = [];
    // Each step runs even when an earlier one failed, so one stubborn object does not strand the rest.
    const steps: [string, () => Promise<void>][] = [
      ['container', () => deps.podman.remove(names.container, deps.stopTimeoutSeconds)],
      ['sandbox', () => endNamespaceProcesses(deps.run, names.netns).then(() => undefined)],
      ['firewall', () => deps.firewall.removeChains(instanceChains(names))],
      ['network', () => deps.network.remove(names)],
      ['forwarding', () => releaseForwarding(instanceId)],
    ];
    for (const [step, action] of steps) {
      try {
        await action();
      } catch (error) {
        deps.logger.error({ instanceId, step, err: error }, 'instance cleanup step failed');
        failures.push(error);
      }
    }
    if (failures.length > 0)
      throw new AggregateError(failures, `stopping instance ${instanceId} left objects behind`);
    deps.logger.info({ instanceId }, 'instance removed');
  }

  /** Removes everything of the instance; idempotent. */
  async function stop(instanceId: string): Promise<void> {
    deps.busy.add(instanceId);
    try {
      await removeAll(instanceId);
    } finally {
      deps.busy.delete(instanceId);
    }
  }

  return { stop };
}
