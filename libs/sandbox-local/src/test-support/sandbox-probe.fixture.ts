import { runCommand } from '../command-runner';
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import { parentEnv } from '@sandbox/testing';
import { IMAGE_NODE_PATH } from '../images/rootfs-layout';

/** How a connection attempt from inside a sandbox ended. */
export interface ProbeOutcome {
  result: 'connected' | 'error' | 'timeout';
  /** errno code for `error` (ECONNREFUSED, EHOSTUNREACH, ...); what the peer sent for `connected`. */
  detail?: string;
}

// Runs inside the sandbox with the image's own Node: connect, read what the peer says (briefly), report.
const PROBE_SCRIPT = `
const net = require('node:net');
const [host, port, timeout] = process.argv.slice(1);
const socket = net.connect({ host, port: Number(port) });
let data = '';
const done = (result, detail) => {
  process.stdout.write(JSON.stringify({ result, detail }));
  socket.destroy();
  process.exit(0);
};
socket.setTimeout(Number(timeout), () => done('timeout'));
socket.on('error', (error) => done('error', error.code));
socket.on('connect', () => {
  socket.on('data', (chunk) => { data += chunk; });
  socket.on('end', () => done('connected', data.trim()));
  setTimeout(() => done('connected', data.trim()), 300);
});
`;

/** Opens a TCP connection from inside the instance's sandbox (podman exec under runsc). */
export async function probeFromInstance(
  container: string,
  host: string,
  port: number,
  timeoutMs = 1500,
): Promise<ProbeOutcome> {
  const { stdout } = await runCommand(
    'podman',
    ['exec', container, IMAGE_NODE_PATH, '-e', PROBE_SCRIPT, host, String(port), String(timeoutMs)],
    {
      timeoutMs: timeoutMs + 15_000,
    },
  );
  return JSON.parse(stdout) as ProbeOutcome;
}

/** Runs a Node expression inside the sandbox and returns what it printed. */
export async function evalInInstance(container: string, script: string): Promise<string> {
  return (await runCommand('podman', ['exec', container, IMAGE_NODE_PATH, '-e', script])).stdout;
}

// Inside the sandbox: one UDP datagram to host:port (IPv4 or IPv6), then wait for any reply.
const UDP_PROBE_SCRIPT = `
const dgram = require('node:dgram');
const [host, port, timeout] = process.argv.slice(1);
const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
const done = (result, detail) => { process.stdout.write(JSON.stringify({ result, detail })); process.exit(0); };
socket.on('error', (error) => done('error', error.code));
socket.on('message', (message) => done('connected', message.toString().trim()));
socket.send('probe', Number(port), host, (error) => { if (error) done('error', error.code); });
setTimeout(() => done('timeout'), Number(timeout));
`;

/** Sends a UDP datagram from inside the instance's sandbox; `connected` means a reply came back. */
export async function probeUdpFromInstance(
  container: string,
  host: string,
  port: number,
  timeoutMs = 1500,
): Promise<ProbeOutcome> {
  const { stdout } = await runCommand(
    'podman',
    ['exec', container, IMAGE_NODE_PATH, '-e', UDP_PROBE_SCRIPT, host, String(port), String(timeoutMs)],
    { timeoutMs: timeoutMs + 15_000 },
  );
  return JSON.parse(stdout) as ProbeOutcome;
}

// Inside the sandbox: resolve a name with the sandbox's own resolver configuration.
const DNS_PROBE_SCRIPT = `
const dns = require('node:dns');
const resolver = new dns.promises.Resolver({ timeout: Number(process.argv[2]), tries: 1 });
resolver.resolve4(process.argv[1]).then(
  (addresses) => process.stdout.write(JSON.stringify({ result: 'connected', detail: addresses.join(',') })),
  (error) => process.stdout.write(JSON.stringify({ result: 'error', detail: error.code })),
);
`;

/** Resolves a name from inside the instance's sandbox as the app would (its /etc/resolv.conf). */
export async function resolveFromInstance(
  container: string,
  name: string,
  timeoutMs = 1500,
): Promise<ProbeOutcome> {
  const { stdout } = await runCommand(
    'podman',
    ['exec', container, IMAGE_NODE_PATH, '-e', DNS_PROBE_SCRIPT, name, String(timeoutMs)],
    { timeoutMs: timeoutMs + 15_000 },
  );
  return JSON.parse(stdout) as ProbeOutcome;
}

// Inside the sandbox: one TCP connection kept open, a round trip every 200 ms; prints `alive` per echo
// answered and `dead <why>` (then exits) once one goes unanswered for 1.5 s or the socket fails.
const HOLD_SCRIPT = `
const [host, port] = process.argv.slice(1);
const socket = require('node:net').connect({ host, port: Number(port) });
let waiting;
const dead = (why) => { process.stdout.write('dead ' + why + '\\n'); process.exit(0); };
const tick = () => {
  socket.write('ping');
  waiting = setTimeout(() => dead('silent'), 1500);
};
socket.on('connect', tick);
socket.on('data', () => {
  clearTimeout(waiting);
  process.stdout.write('alive\\n');
  setTimeout(tick, 200);
});
socket.on('error', (error) => dead(error.code));
socket.on('close', () => dead('closed'));
`;

/**
 * Holds one TCP connection from inside the sandbox to an echo server at host:port (podman exec in
 * its own process group: `kill` ends it); its lines say whether the connection still carries data.
 */
export function holdConnection(container: string, host: string, port: number): ChildProcessHandle {
  return startChildProcess(
    'podman',
    ['exec', container, IMAGE_NODE_PATH, '-e', HOLD_SCRIPT, host, String(port)],
    { env: parentEnv(), keepChars: 10_000 },
  );
}
