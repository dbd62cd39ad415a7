import { runCommand } from '../command-runner';
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
