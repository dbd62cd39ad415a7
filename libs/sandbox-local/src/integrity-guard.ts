import type { Logger } from 'pino';
import type { Clock } from '@sandbox/service-kit';
import { discoverInstances } from './discovery';
import type { DiscoveredInstance } from './discovery';
import type { Conntrack } from './conntrack';
import type { Firewall } from './firewall';
import type { NamespaceDrift, NamespaceFirewall } from './namespace-firewall';
import { namespaceDrift, parseNamespaceSave } from './namespace-firewall';
import type { FirewallSettings } from './firewall-input';
import { firewallInputFor, hostNetworks } from './firewall-input';
import type { RuleDrift } from './firewall-integrity';
import { buildRestoreScript, firewallDrift, parseSave } from './firewall-integrity';
import type { ForwardingLedger } from './forwarding-ledger';
import type { HostNetwork } from './host-network';
import type { InstanceNames } from './naming';
import { instanceChains, instanceNames } from './naming';
import type { Podman } from './podman';
import { watchRepeatedly } from './isolation-watch';

/** An instance whose isolation had drifted, and what the driver did about it. */
export interface IsolationDrift {
  instanceId: string;
  problems: (RuleDrift | NamespaceDrift | { problem: 'sysctl'; detail: string })[];
  /** `restored`: its rules and settings are back; `withdrawn`: it could not be restored and was stopped. */
  action: 'restored' | 'withdrawn';
}

/** What the guard needs from the driver. */
export interface IntegrityGuardDeps {
  prefix: string;
  settings: FirewallSettings;
  podman: Podman;
  network: HostNetwork;
  firewall: Firewall;
  /** The second layer, inside each instance's namespace: checked and restored on its own. */
  namespaceFirewall: NamespaceFirewall;
  /** Clears the flows an instance opened after each restore (a missing tool withdraws it instead). */
  conntrack: Conntrack;
  ledger: ForwardingLedger;
  /** The uplink instances with egress `internet` are forwarded through, if any. */
  uplink(): Promise<string | undefined>;
  /** Instances being started or stopped right now: left alone until the driver is done with them. */
  busy: ReadonlySet<string>;
  stop(instanceId: string): Promise<void>;
  logger: Logger;
}

type Checked = Required<Pick<DiscoveredInstance, 'instanceId' | 'address' | 'egress'>>;

/** The sysctls of the instance's host veth as the driver set them (see HostNetwork.wire). */
function expectedSysctls(names: InstanceNames, instance: Checked): Map<string, string> {
  return new Map([
    [`net.ipv4.conf.${names.hostVeth}.forwarding`, instance.egress === 'internet' ? '1' : '0'],
    [`net.ipv6.conf.${names.hostVeth}.disable_ipv6`, '1'],
  ]);
}

/** What one pass shares between instances. */
interface PassContext {
  networks: string[];
  trusted: ReadonlySet<string>;
  uplink: string | undefined;
}

/** One instance's drift as found, with what its restore needs. */
interface Found {
  names: InstanceNames;
  namespaceSave: string;
  wrong: Map<string, string>;
}

async function sysctlDrift(
  network: HostNetwork,
  instance: Checked,
  names: InstanceNames,
  uplink: string | undefined,
) {
  const expected = expectedSysctls(names, instance);
  if (instance.egress === 'internet' && uplink) expected.set(`net.ipv4.conf.${uplink}.forwarding`, '1');
  const actual = await network.readSysctls([...expected.keys()]);
  const wrong = new Map([...expected].filter(([key, value]) => actual.get(key) !== value));
  const problems = [...wrong.keys()].map((key) => ({
    problem: 'sysctl' as const,
    detail: `${key} is ${actual.get(key) ?? 'missing'}, ${expected.get(key)} expected`,
  }));
  return { wrong, problems };
}

/**
 * The chains this driver created, by exact name: those of instances it runs (a container of its own,
 * with its labels) or is starting or stopping. A chain merely named in the driver's pattern is not
 * among them.
 */
function ownChainsOf(prefix: string, found: readonly DiscoveredInstance[], busy: ReadonlySet<string>) {
  const ids = [...found.filter((entry) => entry.parts.container).map((entry) => entry.instanceId), ...busy];
  return new Set(ids.flatMap((id) => [...instanceChains(instanceNames(prefix, id))]));
}

/**
 * Keeps every running instance's isolation as the driver installed it, whatever else changes the
 * host's rules (Docker, kube-proxy, ufw, an operator): its chains intact rule for rule, its jumps
 * present and first in INPUT, FORWARD, PREROUTING (and POSTROUTING for egress `internet`), its veth's
 * forwarding and IPv6 settings, the uplink's forwarding for egress `internet`, and, checked on its
 * own, the second layer inside its namespace. Drift of either layer restores both, each in one atomic
 * commit per table, then clears the flows the instance opened; an instance that cannot be restored
 * is stopped (fail closed).
 */
export function createIntegrityGuard(deps: IntegrityGuardDeps) {
  /** Both layers and the sysctls of one instance as they are now, against what the driver wrote. */
  async function driftOf(instance: Checked, hostSave: string, context: PassContext) {
    const names = instanceNames(deps.prefix, instance.instanceId);
    const input = firewallInputFor(names, instance.address, instance.egress, context.networks, deps.settings);
    // An unreadable namespace counts as drift: restoring it then fails and the instance is withdrawn.
    const namespaceSave = await deps.namespaceFirewall.dump(names.netns).catch(() => '');
    const sysctls = await sysctlDrift(deps.network, instance, names, context.uplink);
    const problems = [
      ...firewallDrift(parseSave(hostSave), input, context.trusted),
      ...namespaceDrift(parseNamespaceSave(namespaceSave), input),
      ...sysctls.problems,
    ];
    return { names, input, namespaceSave, wrong: sysctls.wrong, problems };
  }

  async function restore(instance: Checked, hostSave: string, found: Found, uplink?: string) {
    const { names, wrong } = found;
    const networks = hostNetworks(await deps.network.listAddresses(), deps.settings);
    const input = firewallInputFor(names, instance.address, instance.egress, networks, deps.settings);
    await deps.firewall.apply(buildRestoreScript(parseSave(hostSave), input));
    const tables = [...parseNamespaceSave(found.namespaceSave).keys()];
    await deps.namespaceFirewall.apply(names.netns, input, tables);
    const uplinkKey = uplink && `net.ipv4.conf.${uplink}.forwarding`;
    if (uplinkKey && wrong.has(uplinkKey)) await deps.ledger.claim(uplink);
    wrong.delete(uplinkKey || '');
    await deps.network.writeSysctls(wrong);
    // No afterlife for the window: whatever the instance opened meanwhile loses its state and NAT.
    await deps.conntrack.forgetFlowsFrom(instance.address, names.netns);
    // A stop that began meanwhile removed the container: take back what the restore re-created.
    if ((await deps.podman.state(names.container)) === undefined)
      await deps.firewall.removeChains(instanceChains(names));
  }

  async function checkOne(instance: Checked, hostSave: string, context: PassContext) {
    const found = await driftOf(instance, hostSave, context);
    if (found.problems.length === 0) return undefined;
    const drift = { instanceId: instance.instanceId, problems: found.problems };
    try {
      await restore(instance, hostSave, found, context.uplink);
      const after = await driftOf(instance, await deps.firewall.dump(), context);
      if (after.problems.length === 0) return { ...drift, action: 'restored' as const };
      deps.logger.error(
        { instanceId: instance.instanceId, problems: after.problems },
        'drift remained after restoring',
      );
    } catch (error) {
      deps.logger.error({ instanceId: instance.instanceId, err: error }, 'restoring isolation failed');
    }
    await deps.stop(instance.instanceId);
    return { ...drift, action: 'withdrawn' as const };
  }

  /** One pass over every running instance; returns the drift found and what was done about it. */
  async function check(): Promise<IsolationDrift[]> {
    const found = await discoverInstances(deps.prefix, deps);
    const running = found.filter(
      (entry): entry is DiscoveredInstance & Checked =>
        entry.containerState === 'running' &&
        entry.address !== undefined &&
        entry.egress !== undefined &&
        !deps.busy.has(entry.instanceId),
    );
    if (running.length === 0) return [];
    const [save, addresses, uplink] = await Promise.all([
      deps.firewall.dump(),
      deps.network.listAddresses(),
      deps.uplink(),
    ]);
    const context: PassContext = {
      networks: hostNetworks(addresses, deps.settings),
      trusted: ownChainsOf(deps.prefix, found, deps.busy),
      uplink,
    };
    const drifts: IsolationDrift[] = [];
    for (const instance of running) {
      const drift = await checkOne(instance, save, context);
      if (!drift) continue;
      deps.logger.error(drift, `isolation drift: ${drift.action}`);
      drifts.push(drift);
    }
    return drifts;
  }

  /** Runs {@link check} every `intervalMs` until stopped; each pass's drift goes to `onDrift`. */
  const watch = (intervalMs: number, clock: Clock, onDrift: (drift: IsolationDrift) => void) =>
    watchRepeatedly(check, { intervalMs, clock, onDrift, logger: deps.logger });

  return { check, watch };
}
