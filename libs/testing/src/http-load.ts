import { connect } from 'node:net';
import type { Socket } from 'node:net';

/** The time source a load run measures with (a monotonic `now` and a `sleep`). */
export interface LoadClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Options of {@link measureRequestsPerSecond}. */
export interface LoadOptions {
  clock: LoadClock;
  connections: number;
  warmupMs: number;
  durationMs: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Number of complete responses at the front of `buffer`, and the bytes they take. */
function completeResponses(buffer: Buffer): { count: number; used: number } {
  let used = 0;
  let count = 0;
  for (;;) {
    const end = buffer.indexOf(HEADER_END, used);
    if (end < 0) break;
    const header = buffer.subarray(used, end).toString('latin1');
    const length = Number(/content-length:\s*(\d+)/i.exec(header)?.[1] ?? '0');
    if (buffer.length < end + 4 + length) break;
    used = end + 4 + length;
    count += 1;
  }
  return { count, used };
}

/**
 * A closed-loop HTTP/1.1 load generator over raw keep-alive sockets (one request in flight per
 * connection), cheap enough on the client that the server is what gets measured. Counts responses in
 * the window after the warm-up.
 */
export async function measureRequestsPerSecond(
  host: string,
  port: number,
  path: string,
  options: LoadOptions,
): Promise<number> {
  const request = Buffer.from(
    `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: keep-alive\r\n\r\n`,
  );
  let responses = 0;
  let running = true;
  const sockets: Socket[] = [];
  for (let index = 0; index < options.connections; index += 1) {
    const socket = connect({ host, port });
    let pending: Buffer = Buffer.alloc(0);
    socket.setNoDelay(true);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const { count, used } = completeResponses(pending);
      if (count === 0) return;
      pending = pending.subarray(used);
      responses += count;
      if (running) socket.write(request);
    });
    socket.on('error', () => undefined);
    sockets.push(socket);
  }
  await options.clock.sleep(options.warmupMs);
  const before = responses;
  const started = options.clock.now();
  await options.clock.sleep(options.durationMs);
  const counted = responses - before;
  const elapsed = options.clock.now() - started;
  running = false;
  for (const socket of sockets) socket.destroy();
  return (counted * 1000) / elapsed;
}
