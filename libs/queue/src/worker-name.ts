import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * BullMQ names a worker's blocking connection `<prefix>:<base64 queue name>:w:<worker name>`
 * (Worker constructor) and records the worker name in the active job's `pb` field: a job is held by
 * a live worker exactly while a client of that name is connected.
 */
const WORKER_CONNECTION_MARK = ':w:';

let processName: string | undefined;

/**
 * This process's worker name: host, pid and a random part, so a restarted process (a container's
 * pid 1 again, on the same host name) never carries the name of the one that died. Redis client
 * names take no spaces, so none appear.
 */
export function processWorkerName(): string {
  processName ??= `${hostname().replace(/\s+/g, '_')}:${process.pid}:${randomBytes(4).toString('hex')}`;
  return processName;
}

/** The client-name prefix of the named workers of `queueName` under `prefix`. */
export function workerConnectionPrefix(prefix: string, queueName: string): string {
  return `${prefix}:${Buffer.from(queueName).toString('base64')}${WORKER_CONNECTION_MARK}`;
}

/**
 * The worker names in a `CLIENT LIST` reply whose connection name starts with `connectionPrefix`
 * ({@link workerConnectionPrefix}): one client per line, `name=<name>` among its fields.
 */
export function workerNamesInClientList(list: string, connectionPrefix: string): Set<string> {
  const names = new Set<string>();
  for (const line of list.split(/\r?\n/)) {
    const name = / name=(\S*)/.exec(` ${line}`)?.[1];
    if (name?.startsWith(connectionPrefix) && name.length > connectionPrefix.length) {
      names.add(name.slice(connectionPrefix.length));
    }
  }
  return names;
}
