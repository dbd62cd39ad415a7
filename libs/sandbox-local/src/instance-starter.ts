import type { Logger } from 'pino';
import type { CommandRunner } from './command-runner';
import type { Firewall } from './firewall';
import type { NamespaceFirewall } from './namespace-firewall';
import { firewallInputFor, hostNetworks } from './firewall-input';
import { buildFirewallScript } from './firewall-rules';
import type { ForwardingLedger } from './forwarding-ledger';
import type { createCapacityGate } from './host-capacity';
import type { HostNetwork } from './host-network';
import { netnsPath } from './host-network';
import type { InstanceSpec, InstanceSpecInput } from './instance-spec.schema';
import { InstanceSpecSchema } from './instance-spec.schema';
import type { InstanceNames } from './naming';
import { newInstanceId } from '@sandbox/protocol';
import { instanceNames } from './naming';
import type { Podman } from './podman';
import { buildRunArgs } from './podman-args';
import { createStopper } from './instance-stopper';
import type { Ipv4Network } from '@sandbox/protocol';
import type { SlotAddressing } from './subnet';
import { nextFreeSlot, slotAddressing, slotOf } from './subnet';

/** The spec was invalid; `issues` lists each bad field by path. */
export class InstanceSpecError extends Error {
  override readonly name = 'InstanceSpecError';
  constructor(readonly issues: { path: string; message: string }[]) {
    super(`invalid instance spec: ${issues.map((issue) => issue.path || '(root)').join(', ')}`);
  }
}

/** Starting an instance failed; whatever was created has been removed again. */
export class InstanceStartError extends Error {
  override readonly name = 'InstanceStartError';
  constructor(
    readonly instanceId: string,
    readonly step: string,
    cause: unknown,
  ) {
    super(`starting instance ${instanceId} failed at ${step}`, { cause });
  }
}

interface StarterDeps {
  prefix: string;
  subnet: Ipv4Network;
  subnetText: string;
  run: CommandRunner;
  podman: Podman;
  network: HostNetwork;
  firewall: Firewall;
  /** The second layer, inside the instance's namespace. */
  namespaceFirewall: NamespaceFirewall;
  ledger: ForwardingLedger;
  capacity: ReturnType<typeof createCapacityGate>;
  /** Ids of instances being started or stopped; the integrity guard leaves them alone. */
  busy: Set<string>;
  logger: Logger;
  runtime: string;
  runtimeFlags: readonly string[];
  hostPorts: readonly number[];
  user: string;
  pidsLimit: number;
  dnsServers: readonly string[];
  egressInterface: string | undefined;
  stopTimeoutSeconds: number;
  logMaxSize: string;
}

type FirewallSettings = Parameters<typeof hostNetworks>[1];

function parseSpec(input: InstanceSpecInput): InstanceSpec {
  const parsed = InstanceSpecSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new InstanceSpecError(
    parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  );
}

/** Wires the namespace, applies its firewall, claims the uplink (internet egress) and runs the container. */
async function buildInstance(
  deps: StarterDeps,
  firewallSettings: FirewallSettings,
  spec: InstanceSpec,
  names: InstanceNames,
  addressing: SlotAddressing,
  hostNetworks: string[],
) {
  const input = firewallInputFor(
    names,
    addressing.instanceAddress,
    spec.egress,
    hostNetworks,
    firewallSettings,
  );
  // Rules name the veth, so they need not wait for it; the host's rules and the namespace's (which
  // exists already) are in place before the container (the only thing that could send) starts. All
  // settle before a failure is thrown, so the cleanup (stop) never races a step still creating something.
  const steps = await Promise.allSettled([
    deps.network.wire(names, addressing, spec.egress),
    deps.firewall.apply(buildFirewallScript(input)),
    deps.namespaceFirewall.apply(names.netns, input),
  ]);
  for (const step of steps) if (step.status === 'rejected') throw step.reason;
  if (spec.egress === 'internet') {
    const uplink = deps.egressInterface ?? (await deps.network.defaultRouteInterface());
    if (uplink) await deps.ledger.claim(uplink);
    else deps.logger.warn({ instanceId: names.instanceId }, 'no uplink for internet egress');
  }
  await deps.podman.run(
    buildRunArgs({
      prefix: deps.prefix,
      names,
      spec,
      instanceAddress: addressing.instanceAddress,
      netnsPath: netnsPath(names.netns),
      runtime: deps.runtime,
      runtimeFlags: deps.runtimeFlags,
      user: deps.user,
      pidsLimit: deps.pidsLimit,
      dnsServers: deps.dnsServers,
      logMaxSize: deps.logMaxSize,
    }),
  );
}

/** Start (and, through the stopper, stop) of single instances, with the /30 allocation they need. */
export function createStarter(deps: StarterDeps) {
  const reserved = new Set<number>();
  const startingInternet = new Set<string>();
  let cursor = 0;
  const { stop } = createStopper({ ...deps, startingInternet });

  const firewallSettings: FirewallSettings = {
    subnet: deps.subnet,
    subnetText: deps.subnetText,
    protectedPorts: deps.hostPorts,
  };

  async function allocate(): Promise<{ addressing: SlotAddressing; hostNetworks: string[] }> {
    const addresses = await deps.network.listAddresses();
    const used = new Set(reserved);
    for (const entry of addresses) {
      const slot = slotOf(deps.subnet, entry.address);
      if (slot !== undefined) used.add(slot);
    }
    const slot = nextFreeSlot(deps.subnet, used, cursor);
    if (slot === undefined) throw new Error('the instance subnet has no free address');
    reserved.add(slot);
    cursor = slot + 1;
    return {
      addressing: slotAddressing(deps.subnet, slot),
      hostNetworks: hostNetworks(addresses, firewallSettings),
    };
  }

  async function start(input: InstanceSpecInput) {
    const spec = parseSpec(input);
    const instanceId = spec.instanceId ?? newInstanceId();
    const names = instanceNames(deps.prefix, instanceId);
    const log = deps.logger.child({ instanceId });
    // Before anything exists on the host: a refused instance leaves nothing behind.
    const release = await deps.capacity.admit(instanceId, spec.resources);
    deps.busy.add(instanceId);
    if (spec.egress === 'internet') startingInternet.add(instanceId);
    try {
      return await startNamed(spec, names, log);
    } finally {
      release();
      deps.busy.delete(instanceId);
      startingInternet.delete(instanceId);
    }
  }

  async function startNamed(spec: InstanceSpec, names: InstanceNames, log: Logger) {
    const { instanceId } = names;
    try {
      // Creating the namespace fails when it exists, so two starts of one id never share objects.
      await deps.network.addNamespace(names);
    } catch (error) {
      throw new InstanceStartError(instanceId, 'namespace', error);
    }
    let slot: number | undefined;
    try {
      const { addressing, hostNetworks } = await allocate();
      slot = addressing.slot;
      await buildInstance(deps, firewallSettings, spec, names, addressing, hostNetworks);
      log.info(
        { address: addressing.instanceAddress, port: spec.port, image: spec.image },
        'instance started',
      );
      const url = `http://${addressing.instanceAddress}:${spec.port}`;
      return { instanceId, address: addressing.instanceAddress, port: spec.port, url };
    } catch (error) {
      log.error({ err: error }, 'instance start failed; removing what was created');
      await stop(instanceId).catch(() => undefined);
      throw new InstanceStartError(instanceId, 'build', error);
    } finally {
      // Once the veth holds the address the host listing shows it, so the reservation can go.
      if (slot !== undefined) reserved.delete(slot);
    }
  }

  return { start, stop, names: (instanceId: string) => instanceNames(deps.prefix, instanceId) };
}
