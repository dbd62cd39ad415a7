/**
 * Our Redis keys under one prefix. Persistent: renaming any of them forgets every app and instance.
 */
export function storeKeys(prefix: string) {
  return {
    /** Set of app names. */
    apps: `${prefix}:apps`,
    /** Hash: spec JSON, hashes, status, times. */
    app: (name: string) => `${prefix}:app:${name}`,
    /** Set of ids of instances that are not gone. */
    live: `${prefix}:instances`,
    /** Set of ids of one app's instances that are not gone. */
    appLive: (app: string) => `${prefix}:app-instances:${app}`,
    /** Hash: one instance record. */
    instance: (id: string) => `${prefix}:instance:${id}`,
    /** Set: session ids active on an instance. */
    sessions: (id: string) => `${prefix}:sessions:${id}`,
    /** Sorted set: ids of gone instances by when they went (records expire after the retention). */
    gone: `${prefix}:gone`,
    /** List: log lines kept after an instance was destroyed. */
    logs: (id: string) => `${prefix}:logs:${id}`,
  };
}

export type StoreKeys = ReturnType<typeof storeKeys>;
