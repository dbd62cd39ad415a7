import { ALL_QUEUES } from '@sandbox/protocol';
import type { ServiceLogger } from '@sandbox/service-kit';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** Opens every queue the protocol defines, on one shared connection, each with an error listener. */
export function openProtocolQueues(connection: Redis, prefix: string, logger: ServiceLogger): Queue[] {
  return ALL_QUEUES.map((definition) => {
    const queue = new Queue(definition.name, { connection, prefix });
    queue.on('error', (err) => logger.warn({ err, queue: definition.name }, 'queue error'));
    return queue;
  });
}
