import { connect } from 'node:net';

/** True when `GET url` answers 200 within a second. */
export async function httpReady(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
  await response.body?.cancel();
  return response.status === 200;
}

/** True when a Redis server on 127.0.0.1:port answers PING with PONG within a second. */
export function redisReady(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (ready: boolean) => {
      socket.destroy();
      resolve(ready);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => finish(data.toString().startsWith('+PONG')));
  });
}
