// The drift window: how long the host's rules stay drifted from the change until the guard (watching at
// the driver's default interval) has restored them, over 50 drifts at random moments of random kinds,
// and how many packets from a sandbox flooding a forbidden host listener got through meanwhile. A second,
// shorter series empties the namespace layer along with each drift, as the control: it shows what the
// counter catches when only the host layer is left to restore. Needs root. Run:
//   npm run bench -- drift-window
import { randomInt } from 'node:crypto';
import { formatIpv4, parseIpv4 } from '@sandbox/protocol';
import { percentile, printFigure } from '@sandbox/testing';
import { runCommand } from './command-runner';
import type { IsolationDrift } from './integrity-guard';
import { createLocalDriver } from './local-driver';
import { instanceNames, type InstanceNames } from './naming';
import { exampleImage, exampleSpec, testLogger } from './test-support/example-app.fixture';
import { listenForbidden, startFlood } from './test-support/drift-flood.fixture';
import { uniqueHost } from './test-support/unique-host.fixture';

const DRIFTS = 50;
const CONTROL_DRIFTS = 10;
const UDP_PORT = 16_481;
const TCP_PORT = 16_482;
/** The driver's default check interval: drifts land anywhere within one. */
const INTERVAL_MS = 2_000;
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;

const { prefix, subnet } = uniqueHost('dw');
const driver = createLocalDriver({ logger: testLogger, prefix, subnet, hostPorts: [TCP_PORT] });
const iptables = (...args: string[]) => runCommand('iptables', ['-w', '5', ...args]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One drift as a firewall reload, Docker or an operator would make it; returns how to take it away. */
type Drift = (names: InstanceNames) => Promise<string[][]>;

const DRIFT_KINDS: Drift[] = [
  async (names) => {
    await iptables('-D', 'INPUT', '-i', names.hostVeth, '-j', names.egressChain);
    return [];
  },
  async (names) => {
    const rule = ['-i', names.hostVeth, '-j', 'ACCEPT'];
    await iptables('-I', 'INPUT', '1', ...rule);
    return [['-D', 'INPUT', ...rule]];
  },
  async (names) => {
    const rules = (await iptables('-S', names.egressChain)).stdout
      .split('\n')
      .filter((l) => l.startsWith('-A '));
    const at = rules.findIndex((rule) => rule.includes('--dst-type LOCAL')) + 1;
    await iptables(
      '-R',
      names.egressChain,
      String(at),
      '-m',
      'addrtype',
      '--dst-type',
      'LOCAL',
      '-j',
      'ACCEPT',
    );
    return [];
  },
];

async function emptyNamespaceLayer(names: InstanceNames): Promise<void> {
  const open = '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n';
  await runCommand('ip', ['netns', 'exec', names.netns, 'iptables-restore', '-w', '5'], { input: open });
}

/** Runs `count` drifts; returns each window (ms) and how many packets arrived during the whole series. */
async function series(names: InstanceNames, arrivals: number[], count: number, alsoNamespace: boolean) {
  const windows: number[] = [];
  const before = arrivals.length;
  let restored: ((drift: IsolationDrift) => void) | undefined;
  const watch = driver.watchIsolation({ onDrift: (drift) => restored?.(drift) });
  try {
    for (let round = 0; round < count; round += 1) {
      await sleep(randomInt(INTERVAL_MS));
      const done = new Promise<IsolationDrift>((resolve) => (restored = resolve));
      // From before the change is made: the window includes the tool's own latency (an upper bound).
      const changed = performance.now();
      if (alsoNamespace) await emptyNamespaceLayer(names);
      const kind = DRIFT_KINDS[randomInt(DRIFT_KINDS.length)] ?? DRIFT_KINDS[0];
      const undo = kind ? await kind(names) : [];
      const drift = await done;
      const back = performance.now();
      if (drift.action !== 'restored') throw new Error(`round ${round}: instance ${drift.action}`);
      for (const rule of undo) await iptables(...rule);
      windows.push(back - changed);
    }
    // Packets still in flight at the last restore arrive within this.
    await sleep(500);
  } finally {
    await watch.stop();
  }
  // Whatever arrived is forbidden, inside a window or not.
  return { windows, reached: arrivals.length - before };
}

async function main(): Promise<void> {
  const instance = await driver.start(exampleSpec(await exampleImage()));
  await driver.waitForReady(instance, HEALTH);
  const names = instanceNames(prefix, instance.instanceId);
  const hostAddress = formatIpv4(parseIpv4(instance.address) - 1);
  const listeners = await listenForbidden(hostAddress, UDP_PORT, TCP_PORT);
  const flood = await startFlood(names.container, hostAddress, UDP_PORT, TCP_PORT);
  try {
    await sleep(1_000);
    if (listeners.arrivals.length > 0) throw new Error('packets got through before any drift');
    const layered = await series(names, listeners.arrivals, DRIFTS, false);
    printFigure('drift_window_p50_ms', percentile(layered.windows, 50), DRIFTS);
    printFigure('drift_window_p99_ms', percentile(layered.windows, 99), DRIFTS);
    printFigure('drift_window_max_ms', Math.max(...layered.windows), DRIFTS);
    printFigure('drift_forbidden_packets_count', layered.reached, DRIFTS);
    const control = await series(names, listeners.arrivals, CONTROL_DRIFTS, true);
    printFigure('drift_host_layer_only_window_p50_ms', percentile(control.windows, 50), CONTROL_DRIFTS);
    printFigure('drift_host_layer_only_forbidden_packets_count', control.reached, CONTROL_DRIFTS);
  } finally {
    await flood.kill();
    await listeners.close();
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const found of await driver.list()) await driver.stop(found.instanceId).catch(() => undefined);
  });
