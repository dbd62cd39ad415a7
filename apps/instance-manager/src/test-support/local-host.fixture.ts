import { randomInt } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { createLocalDriver, hostResources, runCommand } from '@sandbox/sandbox-local';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import type { SandboxDriver } from '@sandbox/sandbox-local';
import { pino } from 'pino';
import type { AppSpecInput } from '@sandbox/protocol';
import { exampleAppSpec } from '@sandbox/testing';
import { chooseLocalRuntime } from '../drivers/local-runtime-choice';

/** Builds (or finds) the example app's image. */
export const exampleImage = (): Promise<string> => ensureExampleAppImage();

export { exampleAppSpec };

/**
 * A name prefix and instance subnet for one run of a root test: two engineers (or CI and an engineer)
 * running the same file at once on one machine must not share namespaces, chains or addresses.
 */
export function uniqueLocalHost(base: string): { prefix: string; subnet: string } {
  const letter = () => String.fromCharCode(97 + randomInt(26));
  return { prefix: `${base}${letter()}${letter()}`, subnet: `10.231.${randomInt(256)}.0/24` };
}

/** The real local driver with the runtime production would choose, under a test prefix and subnet. */
export async function testLocalDriver(
  prefix: string,
  subnet: string,
  hostPorts: number[],
): Promise<SandboxDriver> {
  const logger = pino({ level: 'silent' });
  const runtime = await chooseLocalRuntime('auto', false, { logger });
  // These tests keep many idle example apps at once on small (two-core) machines: they lift the CPU
  // capacity on purpose. The refusal beyond capacity is tested in libs/sandbox-local.
  const capacity = { cpus: 64, memoryMb: hostResources().memoryMb };
  return createLocalDriver({ logger, prefix, subnet, hostPorts, capacity, ...runtime });
}

/** Host objects carrying the prefix, found with plain commands (not through the driver). */
export async function hostLeftovers(prefix: string): Promise<string[]> {
  const [containers, namespaces, links, rules] = await Promise.all([
    runCommand('podman', ['ps', '--all', '--format={{.Names}}']),
    runCommand('ip', ['netns', 'list']),
    runCommand('ip', ['-o', 'link', 'show']),
    runCommand('iptables-save', []),
  ]);
  const names = [
    ...containers.stdout.split('\n'),
    ...namespaces.stdout.split('\n').map((line) => line.split(' ')[0] ?? ''),
    ...links.stdout.split('\n').map((line) => (line.split(': ')[1] ?? '').split('@')[0] ?? ''),
    ...rules.stdout
      .split('\n')
      .filter((line) => line.startsWith(':'))
      .map((line) => line.slice(1).split(' ')[0] ?? ''),
  ];
  const ours = [`${prefix}-`, `${prefix}h`, `${prefix}c`, `${prefix.toUpperCase()}-`];
  return names.filter((name) => ours.some((start) => name.startsWith(start)));
}

/** A single-session app with a warm pool of one, for the replacement benches. */
export function replacementSpec(image: string): AppSpecInput {
  return exampleAppSpec(image, { kind: 'single-session', warmPool: 1, max: 3 });
}

/**
 * Container ids of running runsc sandboxes podman does not know (machine-wide): what a `podman run`
 * killed between `runsc create` and `runsc start` leaves if nobody cleans up.
 */
export async function orphanSandboxes(): Promise<string[]> {
  const known = new Set(
    (await runCommand('podman', ['ps', '--all', '--no-trunc', '--format={{.ID}}'])).stdout.split('\n'),
  );
  const orphans: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = await readFile(`/proc/${entry}/cmdline`, 'utf8').then(
      (text) => text.split('\0'),
      (): string[] => [],
    );
    const id = args.filter((arg) => arg !== '').at(-1) ?? '';
    if (args[0] === 'runsc-sandbox' && args.includes('boot') && /^[0-9a-f]{64}$/.test(id) && !known.has(id))
      orphans.push(id);
  }
  return orphans;
}
