import type { Logger } from 'pino';
import type { CommandRunner } from './command-runner';
import type { Firewall } from './firewall';
import { buildFirewallScript, NON_PUBLIC_RANGES } from './firewall-rules';
import type { HostNetwork } from './host-network';
import { netnsPath } from './host-network';
import type { InstanceSpec, InstanceSpecInput } from './instance-spec.schema';
import { InstanceSpecSchema } from './instance-spec.schema';
import type { InstanceNames } from './naming';
import { instanceNames, newInstanceId } from './naming';
import type { Podman } from './podman';
import { buildRunArgs } from './podman-args';
import { endNamespaceProcesses } from './namespace-processes';
import type { Ipv4Network, SlotAddressing } from './subnet';
import { formatIpv4, nextFreeSlot, parseIpv4, slotAddressing, slotOf } from './subnet';

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

function parseSpec(input: InstanceSpecInput): InstanceSpec {
  const parsed = InstanceSpecSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new InstanceSpecError(
    parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  );
}

/** Start and stop of single instances, with the /30 allocation they need. */
export function createStarter(deps: StarterDeps) {
  const reserved = new Set<number>();
  let cursor = 0;

  async function allocate(): Promise<{ addressing: SlotAddressing; hostNetworks: string[] }> {
    const addresses = await deps.network.listAddresses();
    const used = new Set(reserved);
    const hostNetworks: string[] = [];
    for (const entry of addresses) {
      const slot = slotOf(deps.subnet, entry.address);
      if (slot !== undefined) used.add(slot);
      else hostNetworks.push(networkOf(entry.address, entry.prefixLength));
    }
    const slot = nextFreeSlot(deps.subnet, used, cursor);
    if (slot === undefined) throw new Error('the instance subnet has no free address');
    reserved.add(slot);
    cursor = slot + 1;
    return { addressing: slotAddressing(deps.subnet, slot), hostNetworks: [...new Set(hostNetworks)] };
  }

  async function build(
    spec: InstanceSpec,
    names: InstanceNames,
    addressing: SlotAddressing,
    hostNetworks: string[],
  ) {
    await deps.network.wire(names, addressing, spec.egress);
    const blockedRanges = [...NON_PUBLIC_RANGES, deps.subnetText, ...hostNetworks];
    const script = buildFirewallScript({
      names,
      instanceAddress: addressing.instanceAddress,
      egress: spec.egress,
      blockedRanges,
      protectedPorts: deps.hostPorts,
    });
    await deps.firewall.apply(script);
    if (spec.egress === 'internet') {
      const uplink = deps.egressInterface ?? (await deps.network.defaultRouteInterface());
      if (uplink) await deps.network.enableForwarding(uplink);
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

  async function stop(instanceId: string): Promise<void> {
    const names = instanceNames(deps.prefix, instanceId);
    const failures: unknown[] = [];
    // Each step runs even when an earlier one failed, so one stubborn object does not strand the rest.
    const steps: [string, () => Promise<void>][] = [
      ['container', () => deps.podman.remove(names.container, deps.stopTimeoutSeconds)],
      ['sandbox', () => endNamespaceProcesses(deps.run, names.netns).then(() => undefined)],
      [
        'firewall',
        () => deps.firewall.removeChains(new Set([names.egressChain, names.ingressChain, names.natChain])),
      ],
      ['network', () => deps.network.remove(names)],
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

  async function start(input: InstanceSpecInput) {
    const spec = parseSpec(input);
    const instanceId = spec.instanceId ?? newInstanceId();
    const names = instanceNames(deps.prefix, instanceId);
    const log = deps.logger.child({ instanceId });
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
      await build(spec, names, addressing, hostNetworks);
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

function networkOf(address: string, prefixLength: number): string {
  const value = parseIpv4(address);
  const size = 2 ** (32 - prefixLength);
  return `${formatIpv4(Math.floor(value / size) * size)}/${prefixLength}`;
}
