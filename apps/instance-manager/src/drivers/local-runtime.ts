import { cpuToMillicores, memoryToBytes } from '@sandbox/protocol';
import type { AppSpec } from '@sandbox/protocol';
import { InstanceCapacityError, NotReadyError } from '@sandbox/sandbox-local';
import type { InstanceSpecInput, IsolationDrift, SandboxDriver } from '@sandbox/sandbox-local';
import type { RuntimeDriver, StartRequest } from './runtime-driver';
import { InstanceNotReadyError, InsufficientCapacityError } from './runtime-driver';

const MIB = 2 ** 20;

/** The local driver's instance spec for an app spec: plain values only, our labels for a restart. */
export function localInstanceSpec(request: StartRequest): InstanceSpecInput {
  const { spec } = request;
  return {
    instanceId: request.instanceId,
    image: spec.image,
    port: spec.port,
    ...(spec.args.length > 0 ? { args: spec.args } : {}),
    env: spec.env,
    resources: {
      cpus: cpuToMillicores(spec.resources.cpu) / 1000,
      memoryMb: Math.max(32, Math.ceil(memoryToBytes(spec.resources.memory) / MIB)),
    },
    egress: spec.egress,
    labels: { app: request.app, template: request.templateHash, kind: spec.instances.kind },
  };
}

function target(url: string | undefined): { address: string; port: number } {
  if (!url) throw new Error('the local driver needs the instance URL to probe it');
  const parsed = new URL(url);
  return { address: parsed.hostname, port: Number(parsed.port) };
}

/** Options of {@link createLocalRuntime}. */
export interface LocalRuntimeOptions {
  /** How often every instance's isolation is verified (and restored or withdrawn). @defaultValue 2000 */
  isolationCheckIntervalMs?: number;
  /** Told of each drift found, after the driver restored or withdrew the instance (a metric). */
  onDrift?: (drift: IsolationDrift) => void;
}

/**
 * {@link RuntimeDriver} over `@sandbox/sandbox-local` (gVisor under podman, one namespace each). Open
 * verifies every instance's isolation once before anything else runs, then keeps verifying it.
 */
export function createLocalRuntime(driver: SandboxDriver, options: LocalRuntimeOptions = {}): RuntimeDriver {
  let watch: { stop(): Promise<void> } | undefined;
  return {
    name: 'local',
    async open() {
      for (const drift of await driver.checkIsolation()) options.onDrift?.(drift);
      watch ??= driver.watchIsolation({
        ...(options.isolationCheckIntervalMs === undefined
          ? {}
          : { intervalMs: options.isolationCheckIntervalMs }),
        ...(options.onDrift ? { onDrift: options.onDrift } : {}),
      });
    },
    async close() {
      await watch?.stop();
      watch = undefined;
    },
    synced: () => true,
    ensureApp: async () => undefined,
    removeApp: async () => undefined,
    async start(request) {
      try {
        const started = await driver.start(localInstanceSpec(request));
        return { url: started.url };
      } catch (error) {
        if (error instanceof InstanceCapacityError) throw new InsufficientCapacityError(error.message);
        throw error;
      }
    },
    async waitForReady(instance, spec: AppSpec, options) {
      const { address, port } = target(instance.url);
      try {
        await driver.waitForReady(
          { instanceId: instance.instanceId, address, port },
          spec.healthCheck,
          options,
        );
      } catch (error) {
        if (error instanceof NotReadyError) throw new InstanceNotReadyError(error.reason);
        throw error;
      }
      return { url: `http://${address}:${port}` };
    },
    stop: (instance) => driver.stop(instance.instanceId),
    async list() {
      return (await driver.list()).map((found) => ({
        instanceId: found.instanceId,
        ...(found.labels['app'] ? { app: found.labels['app'] } : {}),
        // A partial local instance cannot be completed: it is destroyed and replaced.
        status: found.complete ? ('running' as const) : ('failed' as const),
        ...(found.url ? { url: found.url } : {}),
      }));
    },
    async logs(instance, tail) {
      try {
        return await driver.logs(instance.instanceId, { tail });
      } catch {
        return undefined;
      }
    },
  };
}
