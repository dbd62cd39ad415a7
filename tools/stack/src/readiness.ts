import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** True when `GET url` answers 200 within a second. */
export async function httpReady(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
  await response.body?.cancel();
  return response.status === 200;
}

/** A Redis command in RESP (binary-safe, so a password needs no quoting). */
const resp = (...parts: string[]) =>
  `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;

/**
 * True when a Redis server on 127.0.0.1:port accepts the password of `passwordFile` and answers PING
 * with PONG within a second.
 */
export function redisReady(port: number, passwordFile: string): Promise<boolean> {
  const password = readFileSync(passwordFile, 'utf8');
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let replies = '';
    const finish = (ready: boolean) => {
      socket.destroy();
      resolve(ready);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write(resp('AUTH', password) + resp('PING')));
    socket.on('data', (data) => {
      replies += data.toString();
      if (replies.includes('-')) finish(false);
      else if (replies === '+OK\r\n+PONG\r\n') finish(true);
    });
  });
}
