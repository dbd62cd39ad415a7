import type { Logger } from 'pino';
// The clock entry alone: this library loads in short-lived processes that must start fast.
import { monotonicClock, type Clock } from '@sandbox/service-kit/clock';
import type { CommandRunner } from './command-runner';
import { runCommand } from './command-runner';
import type { LogLine } from './container-logs';
import type { DiscoveredInstance } from './discovery';
import { discoverInstances } from './discovery';
import { createConntrack } from './conntrack';
import { createFirewall } from './firewall';
import { createNamespaceFirewall } from './namespace-firewall';
import { createHostNetwork } from './host-network';
import type { HealthCheck, InstanceSpecInput } from './instance-spec.schema';
import { assertPrefix } from './naming';
import { createPodman } from './podman';
import type { ReadinessOptions, ReadyResult } from './readiness';
import { waitForReady } from './readiness';
import { createStarter } from './instance-starter';
import { createForwardingLedger } from './forwarding-ledger';
import type { Resources } from './host-capacity';
import { createCapacityGate, hostResources } from './host-capacity';
import type { IsolationDrift } from './integrity-guard';
import { createIntegrityGuard } from './integrity-guard';
import { join } from 'node:path';
import { parseCidr } from '@sandbox/protocol';

/** An instance the driver started. */
export interface StartedInstance {
  instanceId: string;
  /** The instance's address on its veth; only the host can reach it. */
  address: string;
  port: number;
  /** `http://address:port`, the private URL the adapter registers. */
  url: string;
}

/** Options of {@link createLocalDriver}. */
export interface LocalDriverOptions {
  logger: Logger;
  /** @defaultValue 'runsc' (found on PATH by podman) */
  runscPath?: string;
  /** Extra runsc flags, e.g. `platform=ptrace`. @defaultValue [] */
  runtimeFlags?: string[];
  /** Private IPv4 subnet cut into one /30 per instance. @defaultValue '10.213.0.0/16' */
  subnet?: string;
  /** TCP ports of our services and Redis: refused from instances at any address. @defaultValue [] */
  hostPorts?: number[];
  /**
   * Names every host object (`<prefix>-<id>`). Two drivers on one host need different prefixes and
   * subnets. Persistent: changing it orphans running instances. @defaultValue 'sbx'
   */
  prefix?: string;
  /** @defaultValue monotonicClock */
  clock?: Clock;
  /** @defaultValue runCommand (real processes) */
  run?: CommandRunner;
  /** @defaultValue 'podman' */
  podmanPath?: string;
  /** `uid:gid` apps run as. @defaultValue '65534:65534' */
  user?: string;
  /** @defaultValue 1024 */
  pidsLimit?: number;
  /** Public resolvers for egress `internet` instances. @defaultValue [] */
  dnsServers?: string[];
  /** Uplink that must forward replies to egress `internet` instances. @defaultValue the default route's interface */
  egressInterface?: string;
  /** Grace period between SIGTERM and SIGKILL on stop. @defaultValue 5 */
  stopTimeoutSeconds?: number;
  /** Max size of an instance's log file before podman rotates it. @defaultValue '10mb' */
  logMaxSize?: string;
  /**
   * Where the host's own uplink forwarding setting is kept while instances need it on (tmpfs, so it
   * goes with a reboot as the setting does). @defaultValue '/run/sandbox-local'
   */
  stateDir?: string;
  /**
   * CPUs and memory the driver's instances may request in total; a start beyond it is refused with
   * {@link InstanceCapacityError}. @defaultValue the host's CPUs and memory
   */
  capacity?: Resources;
}

/** Options of {@link SandboxDriver.watchIsolation}. */
export interface IsolationWatchOptions {
  /** @defaultValue 2000 */
  intervalMs?: number;
  /** Called for each instance found drifted, after it was restored or withdrawn. */
  onDrift?: (drift: IsolationDrift) => void;
}

/** The runtime driver the instance-manager uses; every method is safe to call after a restart. */
export interface SandboxDriver {
  start(spec: InstanceSpecInput): Promise<StartedInstance>;
  /** Removes the container, firewall rules, veth pair and namespace; idempotent. */
  stop(instanceId: string): Promise<void>;
  /** Every instance of this driver's prefix with anything left on the host. */
  list(): Promise<DiscoveredInstance[]>;
  logs(instanceId: string, options?: { tail?: number }): Promise<LogLine[]>;
  /** Polls the instance from the host until its health check passes; stops early if it exits. */
  waitForReady(
    instance: Pick<StartedInstance, 'instanceId' | 'address' | 'port'>,
    check: HealthCheck,
    options?: Omit<ReadinessOptions, 'clock' | 'isAlive'>,
  ): Promise<ReadyResult>;
  /**
   * Verifies every running instance's isolation now (rules present, first and intact; veth and uplink
   * settings), restores what drifted and stops what cannot be restored. Returns what it found.
   */
  checkIsolation(): Promise<IsolationDrift[]>;
  /** Runs {@link checkIsolation} now and then periodically, until the returned stop is called. */
  watchIsolation(options?: IsolationWatchOptions): { stop(): Promise<void> };
}

/**
 * The local driver: each instance in its own network namespace with a veth pair and per-instance
 * iptables chains, run by podman under gVisor (runsc). It keeps no state of its own: everything is
 * found again on the host by name prefix and container labels.
 */
export function createLocalDriver(options: LocalDriverOptions): SandboxDriver {
  const prefix = options.prefix ?? 'sbx';
  assertPrefix(prefix);
  const run = options.run ?? runCommand;
  const clock = options.clock ?? monotonicClock;
  const podman = createPodman(run, options.podmanPath);
  const network = createHostNetwork(run);
  const firewall = createFirewall(run);
  const conntrack = createConntrack(run);
  const namespaceFirewall = createNamespaceFirewall(run);
  const logger = options.logger.child({ component: 'sandbox-local', prefix });
  const subnetText = options.subnet ?? '10.213.0.0/16';
  const subnet = parseCidr(subnetText);
  const ledger = createForwardingLedger(
    network,
    join(options.stateDir ?? '/run/sandbox-local', `${prefix}-uplink-forwarding.json`),
  );
  const busy = new Set<string>();
  const uplink = async () => options.egressInterface ?? (await network.defaultRouteInterface());
  const capacity = createCapacityGate(options.capacity ?? hostResources(), () => podman.list(prefix));
  const starter = createStarter({
    capacity,
    prefix,
    subnet,
    subnetText,
    run,
    podman,
    network,
    firewall,
    namespaceFirewall,
    ledger,
    busy,
    logger,
    runtime: options.runscPath ?? 'runsc',
    runtimeFlags: options.runtimeFlags ?? [],
    hostPorts: options.hostPorts ?? [],
    user: options.user ?? '65534:65534',
    pidsLimit: options.pidsLimit ?? 1024,
    dnsServers: options.dnsServers ?? [],
    egressInterface: options.egressInterface,
    stopTimeoutSeconds: options.stopTimeoutSeconds ?? 5,
    logMaxSize: options.logMaxSize ?? '10mb',
  });
  const guard = createIntegrityGuard({
    prefix,
    settings: { subnet, subnetText, protectedPorts: options.hostPorts ?? [] },
    podman,
    network,
    firewall,
    namespaceFirewall,
    conntrack,
    ledger,
    uplink,
    busy,
    stop: (instanceId) => starter.stop(instanceId),
    logger,
  });
  return {
    start: (spec) => starter.start(spec),
    checkIsolation: () => guard.check(),
    watchIsolation: (watch = {}) =>
      guard.watch(watch.intervalMs ?? 2000, clock, watch.onDrift ?? (() => undefined)),
    stop: (instanceId) => starter.stop(instanceId),
    list: () => discoverInstances(prefix, { podman, network, firewall }),
    logs: (instanceId, logOptions) => podman.logs(starter.names(instanceId).container, logOptions?.tail),
    waitForReady: (instance, check, readiness) => {
      const container = starter.names(instance.instanceId).container;
      return waitForReady(instance, check, {
        ...readiness,
        clock,
        isAlive: async () => (await podman.state(container)) === 'running',
      });
    },
  };
}
