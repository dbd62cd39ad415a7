import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@sandbox/sandbox-local';

const GO = existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
const DELAY_LINE_MODULE = join(dirname(fileURLToPath(import.meta.url)), '..', 'delay-line');

/** The two ends of an instance's veth and its namespace, named as the local driver names them. */
export interface InstanceLink {
  netns: string;
  /** The end inside the instance's namespace: its egress is the way out of the sandbox. */
  inside: string;
  /** The host end: its egress is the way in. */
  host: string;
}

export function instanceLink(prefix: string, instanceId: string): InstanceLink {
  return {
    netns: `${prefix}-${instanceId}`,
    inside: `${prefix}c${instanceId}`,
    host: `${prefix}h${instanceId}`,
  };
}

async function tc(args: string[], netns?: string) {
  return runCommand(netns ? 'ip' : 'tc', netns ? ['netns', 'exec', netns, 'tc', ...args] : args, {
    allowFailure: true,
  });
}

async function mustTc(args: string[], netns?: string) {
  const result = await tc(args, netns);
  if (result.exitCode !== 0) throw new Error(`tc ${args.join(' ')} failed: ${result.stderr.trim()}`);
}

/** Whether this kernel has sch_netem: tries it on the inside end and takes it off again. */
export async function hasNetem(link: InstanceLink): Promise<boolean> {
  const probe = await tc(
    ['qdisc', 'replace', 'dev', link.inside, 'root', 'netem', 'delay', '0ms'],
    link.netns,
  );
  await tc(['qdisc', 'del', 'dev', link.inside, 'root'], link.netns);
  return probe.exitCode === 0;
}

/** The host end's MTU (the inside end has the same: the driver sets both). */
export async function linkMtu(link: InstanceLink): Promise<number> {
  const shown = await runCommand('ip', ['-o', 'link', 'show', 'dev', link.host]);
  const mtu = /\bmtu (\d+)/u.exec(shown.stdout)?.[1];
  if (mtu === undefined) throw new Error(`no mtu in: ${shown.stdout.trim()}`);
  return Number(mtu);
}

/**
 * Shapes both directions to `rateMbit`. With netem: `delayMs` on the way out of the sandbox and the
 * rate both ways. Without: tbf (rate only; `delayMs` must be 0, the delay line adds delay instead).
 */
export async function shapeRate(
  link: InstanceLink,
  rateMbit: number,
  netem: { delayMs: number } | undefined,
) {
  const rate = `${rateMbit}mbit`;
  if (netem) {
    const limit = ['rate', rate, 'limit', '10000'];
    await mustTc(
      ['qdisc', 'replace', 'dev', link.inside, 'root', 'netem', 'delay', `${netem.delayMs}ms`, ...limit],
      link.netns,
    );
    await mustTc(['qdisc', 'replace', 'dev', link.host, 'root', 'netem', ...limit]);
    return;
  }
  // A bucket of at least one 64 KiB GSO frame, and 100 ms of queue before tbf drops.
  const tbf = ['tbf', 'rate', rate, 'burst', `${Math.max(64, rateMbit / 2)}kb`, 'latency', '100ms'];
  await mustTc(['qdisc', 'replace', 'dev', link.inside, 'root', ...tbf], link.netns);
  await mustTc(['qdisc', 'replace', 'dev', link.host, 'root', ...tbf]);
}

/** netem's delay alone on the way out of the sandbox (the inside end's egress). */
export async function addNetemDelay(link: InstanceLink, delayMs: number): Promise<void> {
  await mustTc(
    ['qdisc', 'replace', 'dev', link.inside, 'root', 'netem', 'delay', `${delayMs}ms`],
    link.netns,
  );
}

export async function clearShaping(link: InstanceLink): Promise<void> {
  await tc(['qdisc', 'del', 'dev', link.inside, 'root'], link.netns);
  await tc(['qdisc', 'del', 'dev', link.host, 'root']);
}

/** What the delay line reports when it stops, in microseconds: how late its verdicts went out. */
export interface DelayLineStats {
  packets: number;
  meanLateUs: number;
  medianLateUs: number;
  maxLateUs: number;
  /** How long the verdict syscall took (the kernel passes the packet on within it). */
  medianVerdictUs: number;
  /** From the kernel's arrival stamp to the delay line reading the packet. */
  medianReadLagUs: number;
}

const SUMMARY =
  /packets=(\d+) mean_late_us=(\S+) median_late_us=(\S+) max_late_us=(\S+) median_verdict_us=(\S+) median_read_lag_us=(\S+)/u;

export function parseDelayLineSummary(out: string): DelayLineStats {
  const summary = SUMMARY.exec(out);
  if (!summary) throw new Error(`the delay line gave no summary: ${out.trim()}`);
  const [packets, meanLateUs, medianLateUs, maxLateUs, medianVerdictUs, medianReadLagUs] = summary
    .slice(1)
    .map(Number) as [number, number, number, number, number, number];
  return { packets, meanLateUs, medianLateUs, maxLateUs, medianVerdictUs, medianReadLagUs };
}

/**
 * The delay line (`apps/verifier/bench/delay-line`, built with go into `dir`): while engaged, every
 * packet leaving the sandbox is queued to NFQUEUE as it enters the host end of the veth, and accepted
 * `delayMs` later. The kernel holds the packet itself; only its verdict waits. It is not netem: netem would hold
 * it in the inside end's qdisc.
 */
export async function startDelayLine(link: InstanceLink, delayMs: number, dir: string) {
  const binary = join(dir, 'delay-line');
  await runCommand(GO, ['-C', DELAY_LINE_MODULE, 'build', '-o', binary, '.'], { timeoutMs: 300_000 });
  const queue = String(randomInt(1000, 60_000));
  const child = spawn(binary, ['-queue', queue, '-delay', `${delayMs}ms`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => child.stdout.on('data', () => out.includes('ready') && resolve(true))),
    exited.then(() => false),
  ]);
  if (!ready) throw new Error(`the delay line did not start: ${out.trim()}`);
  // --queue-bypass: should the delay line die, packets pass instead of being dropped.
  const rule = ['PREROUTING', '-i', link.host, '-j', 'NFQUEUE', '--queue-num', queue, '--queue-bypass'];
  let engaged = false;
  const release = async () => {
    if (!engaged) return;
    engaged = false;
    await runCommand('iptables', ['-t', 'mangle', '-D', ...rule], { allowFailure: true });
    // Packets queued before the rule went are still held: let them out.
    await new Promise((resolve) => setTimeout(resolve, delayMs * 2));
  };
  return {
    /** Puts the delay on the link (the rule that queues the sandbox's packets). */
    async engage(): Promise<void> {
      await runCommand('iptables', ['-t', 'mangle', '-I', ...rule]);
      engaged = true;
    },
    release,
    async stop(): Promise<DelayLineStats> {
      await release();
      child.kill('SIGTERM');
      await exited;
      return parseDelayLineSummary(out);
    },
  };
}
