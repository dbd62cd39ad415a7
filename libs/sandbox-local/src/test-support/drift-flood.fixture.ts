import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import { parentEnv } from '@sandbox/testing';
import { IMAGE_NODE_PATH } from '../images/rootfs-layout';

// Inside the sandbox: a UDP datagram every 2 ms and a TCP connection attempt every 20 ms to one
// forbidden destination, forever; every refusal is ignored (that is the expected outcome).
const FLOOD_SCRIPT = `
const [host, udpPort, tcpPort] = process.argv.slice(1);
const udp = require('node:dgram').createSocket('udp4');
udp.on('error', () => undefined);
setInterval(() => udp.send('x', Number(udpPort), host, () => undefined), 2);
setInterval(() => {
  const socket = require('node:net').connect({ host, port: Number(tcpPort) });
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.destroy());
  socket.setTimeout(500, () => socket.destroy());
}, 20);
process.stdout.write('flooding\\n');
`;

/** What reached the forbidden listeners, each with the time it arrived (performance.now()). */
export interface ForbiddenListeners {
  arrivals: number[];
  close(): Promise<void>;
}

/** A UDP and a TCP listener on a forbidden host address; every datagram and connection is recorded. */
export async function listenForbidden(
  host: string,
  udpPort: number,
  tcpPort: number,
): Promise<ForbiddenListeners> {
  const arrivals: number[] = [];
  const udp = createSocket('udp4');
  udp.on('message', () => arrivals.push(performance.now()));
  await new Promise<void>((resolve, reject) => udp.once('error', reject).bind(udpPort, host, resolve));
  const tcp = createServer((socket) => {
    arrivals.push(performance.now());
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => tcp.once('error', reject).listen(tcpPort, host, resolve));
  return {
    arrivals,
    async close() {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

/** Starts the flood inside the instance's sandbox (its own process group); resolves once it runs. */
export async function startFlood(
  container: string,
  host: string,
  udpPort: number,
  tcpPort: number,
): Promise<ChildProcessHandle> {
  const child = startChildProcess(
    'podman',
    ['exec', container, IMAGE_NODE_PATH, '-e', FLOOD_SCRIPT, host, String(udpPort), String(tcpPort)],
    { env: parentEnv(), keepChars: 10_000 },
  );
  await child.waitForLine((line) => line === 'flooding', 30_000);
  return child;
}
