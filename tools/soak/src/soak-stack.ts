import { EventEmitter } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ensureStackSecrets,
  inheritedEnv,
  localInstances,
  restrictRedisData,
  runStack,
  stackMembers,
  StackConfigSchema,
  type ProcessSpec,
  type StackConfig,
  type StackConsole,
  type StackSecrets,
  type SupervisedMember,
} from './stack-api';
import { findFreePort } from '@sandbox/testing';
import type { Logger } from 'pino';

/** Members the soak leaves out: an evaluation takes a whole core, too much for a long soak beside other work. */
const LEFT_OUT = new Set(['verifier', 'eval-responder']);

/** The embedded stack as the soak runs it: its members by name, with their pids, and a way to stop it. */
export interface SoakStack {
  readonly config: StackConfig;
  readonly secrets: StackSecrets;
  readonly dataDir: string;
  readonly members: ReadonlyMap<string, SupervisedMember>;
  /** Every member's first run is ready (rejects when start-up failed). */
  readonly ready: Promise<void>;
  /** Keeps `member` from starting again until {@link allowRestart}: its runs exit at once. */
  refuseRestart(member: string): void;
  allowRestart(member: string): void;
  /** Relays a signal the soak's process received (the drain's restart request) to the stack. */
  relay(signal: string): void;
  /** Stops the members in reverse order and removes the app instances; resolves the stack's exit code. */
  stop(): Promise<number>;
}

/** Free loopback ports for every member (other stacks may run on this machine). */
async function freePorts(): Promise<Record<string, string>> {
  const names = Object.keys(StackConfigSchema.shape).filter((key) => key.endsWith('_PORT'));
  const ports: Record<string, string> = {};
  for (const name of names) ports[name] = String(await findFreePort());
  return ports;
}

/**
 * A member's run passes a gate first: while the soak keeps a refusal file for it, the run exits at
 * once (status 75) and the supervisor backs off as it does for any crash. `exec` keeps the pid.
 */
function gated(spec: ProcessSpec, gateDir: string): ProcessSpec {
  const gate = join(gateDir, spec.name);
  const script = 'if [ -e "$0" ]; then echo "start refused by the soak" >&2; exit 75; fi; exec "$@"';
  return { ...spec, command: '/bin/sh', args: ['-c', script, gate, spec.command, ...spec.args] };
}

/** Starts the embedded stack in paid mode on fresh data under `runDir`, instances under `prefix`. */
export async function startSoakStack(options: {
  runDir: string;
  prefix: string;
  subnet: string;
  console: StackConsole;
  logger: Logger;
  baseEnv: NodeJS.ProcessEnv;
}): Promise<SoakStack> {
  const dataDir = join(options.runDir, 'data');
  const gateDir = join(options.runDir, 'refused');
  for (const folder of ['node-sim', 'redeemer-sim']) mkdirSync(join(dataDir, folder), { recursive: true });
  mkdirSync(gateDir, { recursive: true });
  restrictRedisData(join(dataDir, 'redis'));
  const config = StackConfigSchema.parse({
    ...(await freePorts()),
    NODE_SIM_PAID: 'true',
    INSTANCE_PREFIX: options.prefix,
    INSTANCE_SUBNET: options.subnet,
    STACK_DATA_DIR: dataDir,
    STACK_CONSOLE: 'plain',
  });
  const secrets = ensureStackSecrets(dataDir);
  const specs = stackMembers(config, {
    root: process.cwd(),
    dataDir,
    secrets,
    isRoot: true,
    nodePath: process.execPath,
    baseEnv: inheritedEnv(options.baseEnv),
  })
    .filter((spec) => !LEFT_OUT.has(spec.name))
    .map((spec) => gated(spec, gateDir));
  const signals = new EventEmitter();
  const members = new Map<string, SupervisedMember>();
  let allStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (allStarted = resolve));
  const exitCode = runStack(specs, {
    console: options.console,
    signals,
    instances: localInstances({ prefix: options.prefix, subnet: options.subnet, logger: options.logger }),
    stopGraceMs: 10_000,
    onMember: (member) => {
      members.set(member.spec.name, member);
      if (members.size === specs.length) allStarted();
    },
  });
  const ready = Promise.race([
    started.then(() => Promise.all([...members.values()].map((m) => m.firstReady))).then(() => undefined),
    exitCode.then(() => Promise.reject(new Error('the stack stopped before every member was ready'))),
  ]);
  return {
    config,
    secrets,
    dataDir,
    members,
    ready,
    refuseRestart: (member) => writeFileSync(join(gateDir, member), 'refused\n'),
    allowRestart: (member) => rmSync(join(gateDir, member), { force: true }),
    relay: (signal) => void signals.emit(signal),
    stop: async () => {
      rmSync(gateDir, { recursive: true, force: true });
      signals.emit('SIGTERM');
      return exitCode;
    },
  };
}
