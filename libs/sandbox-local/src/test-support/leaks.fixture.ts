import { readdir } from 'node:fs/promises';
import { runCommand } from '../command-runner';
import { parseSandboxCommand, procReader } from '../namespace-processes';

/** Host objects whose names start with the prefix, found with plain commands (not the driver's code). */
export interface Leftovers {
  containers: string[];
  namespaces: string[];
  links: string[];
  chains: string[];
  /** Container ids of live runsc sandboxes podman does not know (machine-wide: crashes anywhere). */
  orphanSandboxes: string[];
}

async function orphanSandboxes(): Promise<string[]> {
  const known = new Set(
    (await runCommand('podman', ['ps', '--all', '--no-trunc', '--format={{.ID}}'])).stdout.split('\n'),
  );
  const orphans: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const sandbox = parseSandboxCommand((await procReader.cmdline(Number(entry))) ?? []);
    if (sandbox && !known.has(sandbox.containerId)) orphans.push(sandbox.containerId);
  }
  return orphans;
}

/** Everything on the host that carries the prefix: what a leak check expects to be empty. */
/** What {@link leftovers} finds once everything is cleaned up. */
export const NO_LEFTOVERS: Readonly<Leftovers> = Object.freeze({
  containers: [],
  namespaces: [],
  links: [],
  chains: [],
  orphanSandboxes: [],
});

export async function leftovers(prefix: string): Promise<Leftovers> {
  const containers = (await runCommand('podman', ['ps', '--all', '--format={{.Names}}'])).stdout.split('\n');
  const namespaces = (await runCommand('ip', ['netns', 'list'])).stdout
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '');
  const links = (await runCommand('ip', ['-o', 'link', 'show'])).stdout
    .split('\n')
    .map((line) => (line.split(': ')[1] ?? '').split('@')[0] ?? '');
  const chains = (await runCommand('iptables-save', [])).stdout
    .split('\n')
    .filter((line) => line.startsWith(':'))
    .map((line) => line.slice(1).split(' ')[0] ?? '');
  const upper = `${prefix.toUpperCase()}-`;
  return {
    containers: containers.filter((name) => name.startsWith(`${prefix}-`)),
    namespaces: namespaces.filter((name) => name.startsWith(`${prefix}-`)),
    links: links.filter((name) => name.startsWith(`${prefix}h`) || name.startsWith(`${prefix}c`)),
    chains: chains.filter((name) => name.startsWith(upper)),
    orphanSandboxes: await orphanSandboxes(),
  };
}
