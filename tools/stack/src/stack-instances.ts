import { createLocalDriver } from '@sandbox/sandbox-local';
import type { Logger } from 'pino';

/** The app instances the stack's instance-manager runs (its local driver's, found on the host). */
export interface StackInstances {
  /** Names every host object of the instances (namespaces, chains, containers). */
  readonly prefix: string;
  /** Ids of every instance with anything left on the host. */
  list(): Promise<string[]>;
  /** Removes an instance's container, firewall rules, veth pair and namespace. */
  destroy(instanceId: string): Promise<void>;
}

/** The local driver's instances of `prefix`, as the instance-manager (same prefix and subnet) runs them. */
export function localInstances(options: { prefix: string; subnet: string; logger: Logger }): StackInstances {
  const driver = createLocalDriver(options);
  return {
    prefix: options.prefix,
    list: async () => (await driver.list()).map((instance) => instance.instanceId),
    destroy: (instanceId) => driver.stop(instanceId),
  };
}

/**
 * After the members stopped: removes the instances, or with `keep` leaves them running, and says which
 * and how the next start treats them.
 */
export async function settleInstances(
  instances: StackInstances,
  keep: boolean,
  say: (message: string) => void,
): Promise<void> {
  const ids = await instances.list().catch((error: Error) => {
    say(`could not list the app instances: ${error.message}`);
    return [];
  });
  const count = `${ids.length} app instance${ids.length === 1 ? '' : 's'}`;
  if (ids.length === 0) return say('no app instances are running');
  if (keep) {
    say(
      `kept ${count} running (prefix ${instances.prefix}); the next start adopts each one its ` +
        'records (in Redis) still name and removes the others',
    );
    return;
  }
  let failed = 0;
  for (const id of ids) {
    await instances.destroy(id).catch((error: Error) => {
      failed += 1;
      say(`could not remove app instance ${id}: ${error.message}`);
    });
  }
  say(
    `stopped ${ids.length - failed} of ${count}; the next start replaces them ` +
      '(start with --keep-instances or STACK_KEEP_INSTANCES=true to keep them running)',
  );
}
