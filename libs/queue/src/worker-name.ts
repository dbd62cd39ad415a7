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
