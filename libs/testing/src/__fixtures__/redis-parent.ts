// A parent for the redis-server spec: starts a fixture server, prints its port and directory, and
// waits to be killed (it never stops the server itself).
import { startRedis } from '../redis-server';

const redis = await startRedis();
process.stdout.write(`${redis.port} ${redis.dir}\n`);
setInterval(() => undefined, 1_000);
