import { createLocalDriver, hostResources } from '@sandbox/sandbox-local';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '@sandbox/service-kit';
import type { InstanceManagerConfig } from '../config';
import { chooseLocalRuntime } from './local-runtime-choice';
import { isolationDriftCounter } from './isolation-metrics';
import { createLocalRuntime } from './local-runtime';
import type { RuntimeDriver } from './runtime-driver';

/**
 * The driver the config names. The Kubernetes client is loaded only when that driver is chosen. With a
 * registry, the local driver's isolation drift is counted there.
 */
export async function createDriver(
  config: InstanceManagerConfig,
  logger: Logger,
  clock: Clock,
  registry?: Registry,
): Promise<RuntimeDriver> {
  if (config.DRIVER === 'kubernetes') {
    const { connectKubernetesRuntime } = await import('./kubernetes-connect');
    return connectKubernetesRuntime(config, logger, clock);
  }
  const runtime = await chooseLocalRuntime(config.LOCAL_RUNTIME, config.LOCAL_RUNSC_BUILD, { logger });
  const driver = createLocalDriver({
    logger,
    prefix: config.LOCAL_PREFIX,
    subnet: config.LOCAL_SUBNET,
    hostPorts: [...new Set([...config.LOCAL_PROTECTED_PORTS, config.PORT])],
    runscPath: runtime.runscPath,
    runtimeFlags: runtime.runtimeFlags,
    dnsServers: config.LOCAL_DNS_SERVERS,
    capacity: {
      cpus: config.LOCAL_CAPACITY_CPUS ?? hostResources().cpus,
      memoryMb: config.LOCAL_CAPACITY_MEMORY_MB ?? hostResources().memoryMb,
    },
  });
  return createLocalRuntime(driver, registry ? { onDrift: isolationDriftCounter(registry) } : {});
}
