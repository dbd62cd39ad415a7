import { TICKET_DELIVERY_QUEUE } from '@sandbox/protocol';
import { createDurableWriter, createProducer, createRedisConnection, type Producer } from '@sandbox/queue';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { createTicketQueries, type TicketQueries } from '../store/ticket-queries';
import { createTicketStore, type TicketStore } from '../store/ticket-store';

/** Connections, a store and the delivery queue under fresh prefixes, on a test's Redis. */
export interface RedisContext {
  readonly producerRedis: Redis;
  readonly workerRedis: Redis;
  readonly store: TicketStore;
  readonly workerStore: TicketStore;
  readonly queries: TicketQueries;
  readonly producer: Producer<typeof TICKET_DELIVERY_QUEUE>;
  readonly durable: ReturnType<typeof createDurableWriter<Redis>>;
  readonly queuePrefix: string;
  close(): Promise<void>;
}

export async function openRedisContext(url: string, prefix: string): Promise<RedisContext> {
  const logger = pino({ level: 'silent' });
  const producerRedis = createRedisConnection(url, 'producer');
  const workerRedis = createRedisConnection(url, 'worker');
  if (producerRedis.status !== 'ready') await new Promise((resolve) => producerRedis.once('ready', resolve));
  const store = createTicketStore(producerRedis, `${prefix}:rh`);
  const queuePrefix = `${prefix}-bull`;
  const producer = createProducer(TICKET_DELIVERY_QUEUE, {
    connection: producerRedis,
    prefix: queuePrefix,
    logger,
  });
  return {
    producerRedis,
    workerRedis,
    store,
    workerStore: createTicketStore(workerRedis, `${prefix}:rh`),
    queries: createTicketQueries(producerRedis, store.keys),
    producer,
    durable: createDurableWriter(producerRedis),
    queuePrefix,
    async close() {
      await producer.queue.obliterate({ force: true }).catch(() => undefined);
      await producer.close();
      await Promise.all([producerRedis.quit(), workerRedis.quit()]);
    },
  };
}
