// Probes run inside an app pod with the image's own Node binary (the images have no shell).
import { IMAGE_NODE_PATH } from '@sandbox/sandbox-local';
import type { ProbeOutcome } from './egress-matrix';
import type { Kubectl } from './kubectl';

const CONNECT = `
const [host, port, timeout] = process.argv.slice(1);
const socket = require('node:net').connect({ host, port: Number(port) });
const done = (result, detail) => { process.stdout.write(JSON.stringify({ result, detail })); socket.destroy(); process.exit(0); };
socket.setTimeout(Number(timeout), () => done('timeout'));
socket.on('error', (error) => done('error', error.code));
socket.on('connect', () => done('connected'));
`;

// c-ares with the pod's own /etc/resolv.conf: the nameservers the kubelet wrote from the pod's spec.
const RESOLVE = `
const [name, timeout] = process.argv.slice(1);
const done = (result, detail) => { process.stdout.write(JSON.stringify({ result, detail })); process.exit(0); };
setTimeout(() => done('timeout'), Number(timeout));
new (require('node:dns').promises.Resolver)({ timeout: 1000, tries: 2 }).resolve4(name).then(
  (addresses) => done('resolved', addresses),
  (error) => done('error', error.code),
);
`;

const KERNEL = `
const os = require('node:os');
const version = require('node:fs').readFileSync('/proc/version', 'utf8').trim();
process.stdout.write(JSON.stringify({ release: os.release(), version }));
`;

/** `kubectl exec` of a Node script in the pod's first container. */
async function nodeInPod(kubectl: Kubectl, namespace: string, pod: string, script: string, args: string[]) {
  return kubectl.run(['-n', namespace, 'exec', pod, '--', IMAGE_NODE_PATH, '-e', script, ...args], {
    timeoutMs: 60_000,
  });
}

/** Opens a TCP connection from inside the pod. */
export async function connectFromPod(
  kubectl: Kubectl,
  namespace: string,
  pod: string,
  target: { host: string; port: number },
  timeoutMs = 3_000,
): Promise<ProbeOutcome> {
  const out = await nodeInPod(kubectl, namespace, pod, CONNECT, [
    target.host,
    String(target.port),
    String(timeoutMs),
  ]);
  return JSON.parse(out) as ProbeOutcome;
}

/** A name resolution from inside the pod: its addresses, or why there are none. */
export type ResolveOutcome =
  { result: 'resolved'; detail: string[] } | { result: 'error'; detail: string } | { result: 'timeout' };

/** Resolves `name` (A records) from inside the pod through the resolvers the pod was given. */
export async function resolveFromPod(
  kubectl: Kubectl,
  namespace: string,
  pod: string,
  name: string,
  timeoutMs = 5_000,
): Promise<ResolveOutcome> {
  return JSON.parse(
    await nodeInPod(kubectl, namespace, pod, RESOLVE, [name, String(timeoutMs)]),
  ) as ResolveOutcome;
}

/** The kernel the pod sees: gVisor's Sentry reports its own release and version string. */
export async function podKernel(
  kubectl: Kubectl,
  namespace: string,
  pod: string,
): Promise<{ release: string; version: string }> {
  return JSON.parse(await nodeInPod(kubectl, namespace, pod, KERNEL, [])) as {
    release: string;
    version: string;
  };
}

/**
 * True when the pod's kernel is gVisor's and not the node's: a different release than the node's
 * own kernel, and gVisor's fixed version string (it never names a real build host).
 */
export function isGvisorKernel(pod: { release: string; version: string }, nodeRelease: string): boolean {
  return (
    pod.release !== nodeRelease && /^Linux version \S+ #1 SMP Sun Jan 10 15:06:54 PST 2016/.test(pod.version)
  );
}
