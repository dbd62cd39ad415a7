import { formatIpv4, parseIpv4 } from '@sandbox/protocol';
import type { CommandRunner } from './command-runner';
import type { FirewallInput } from './firewall-rules';
import { REPLY_ACCEPT } from './firewall-rules';

/**
 * The second layer: the same egress policy, written into the filter table of the instance's own
 * network namespace. Host firewall tools (Docker, ufw, firewalld, kube-proxy, an operator's
 * `iptables -I`) write to the host's tables only, so a drift of those opens nothing here. gVisor runs
 * with `network=host`: the sandbox's sockets are the namespace's kernel sockets, so everything the app
 * sends passes this OUTPUT chain before it reaches the veth.
 *
 * The driver owns the whole table: every built-in chain's policy and rules are compared with what it
 * wrote, and any chain, or any rule in another table, that it did not write is drift.
 */

const REJECT = '-j REJECT --reject-with icmp-admin-prohibited';
const MULTIPORT_LIMIT = 15;
const BUILT_IN = ['INPUT', 'FORWARD', 'OUTPUT'] as const;

/** One chain of the namespace's filter table, as iptables-save prints it. */
export interface NamespaceChain {
  policy: string;
  /** Each rule's text after `-A CHAIN `. */
  rules: string[];
}

/** A table → chain → {@link NamespaceChain} reading of the namespace's `iptables-save` output. */
export type NamespaceTables = Map<string, Map<string, NamespaceChain>>;

/** One way the namespace layer differs from what the driver wrote. */
export interface NamespaceDrift {
  problem: 'namespace-rules-altered' | 'namespace-foreign-rules';
  detail: string;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
}

/** The namespace's filter table for one instance: chain → policy and rules. */
function namespaceRules(input: FirewallInput): Map<string, NamespaceChain> {
  // The host's end of the /30 is the instance's address minus one (see subnet.ts).
  const host = formatIpv4(parseIpv4(input.instanceAddress) - 1);
  const veth = input.names.instanceVeth;
  const output = [
    // The app's own loopback and its own address stay inside the namespace.
    '-o lo -j ACCEPT',
    // Replies on connections the host opened; the app's own flows are judged below, packet by packet.
    REPLY_ACCEPT,
    ...chunks([...new Set(input.protectedPorts)], MULTIPORT_LIMIT).map(
      (ports) => `-p tcp -m multiport --dports ${ports.join(',')} ${REJECT}`,
    ),
    // The host's end of the veth is in the driver's subnet, its other networks are listed here too.
    ...input.blockedRanges.map((range) => `-d ${range} ${REJECT}`),
    ...(input.egress === 'internet' ? ['-j ACCEPT'] : []),
    REJECT,
  ];
  const inbound = [
    '-i lo -j ACCEPT',
    // Replies to what the app opened (egress `internet`), and connections the host opens to it.
    REPLY_ACCEPT,
    `-s ${host}/32 -i ${veth} -j ACCEPT`,
    REJECT,
  ];
  return new Map([
    ['INPUT', { policy: 'DROP', rules: inbound }],
    ['FORWARD', { policy: 'DROP', rules: [REJECT] }],
    ['OUTPUT', { policy: 'DROP', rules: output }],
  ]);
}

/**
 * The `iptables-restore` script (without --noflush) that replaces the namespace's filter table with the
 * instance's rules and empties every other table found there, each table in one atomic commit.
 */
export function namespaceScript(input: FirewallInput, otherTables: readonly string[] = []): string {
  const chains = namespaceRules(input);
  const lines = [
    '*filter',
    ...BUILT_IN.map((chain) => `:${chain} ${chains.get(chain)?.policy ?? 'DROP'} [0:0]`),
    ...BUILT_IN.flatMap((chain) => (chains.get(chain)?.rules ?? []).map((rule) => `-A ${chain} ${rule}`)),
    'COMMIT',
    ...otherTables.filter((table) => table !== 'filter').flatMap((table) => [`*${table}`, 'COMMIT']),
  ];
  return `${lines.join('\n')}\n`;
}

/** Parses the namespace's `iptables-save` output, chain policies included. */
export function parseNamespaceSave(output: string): NamespaceTables {
  const tables: NamespaceTables = new Map();
  let chains: Map<string, NamespaceChain> | undefined;
  for (const line of output.split('\n')) {
    if (line.startsWith('*')) tables.set(line.slice(1).trim(), (chains = new Map()));
    else if (line.startsWith(':') && chains) {
      const [name = '', policy = '-'] = line.slice(1).split(' ');
      chains.set(name, { policy, rules: [] });
    } else if (line.startsWith('-A ') && chains) {
      const [, chain = '', ...rest] = line.split(' ');
      chains.get(chain)?.rules.push(rest.join(' '));
    }
  }
  return tables;
}

/**
 * How the namespace's tables differ from what the driver wrote: a built-in chain of the filter table
 * with another policy or not rule for rule the driver's, a chain it did not create, or a rule in any
 * other table. Empty when the layer is as installed.
 */
export function namespaceDrift(tables: NamespaceTables, input: FirewallInput): NamespaceDrift[] {
  const drift: NamespaceDrift[] = [];
  const expected = namespaceRules(input);
  const filter = tables.get('filter') ?? new Map<string, NamespaceChain>();
  for (const [name, want] of expected) {
    const have = filter.get(name);
    const same =
      have?.policy === want.policy &&
      have.rules.length === want.rules.length &&
      have.rules.every((rule, index) => rule === want.rules[index]);
    if (!same)
      drift.push({
        problem: 'namespace-rules-altered',
        detail: `filter ${name}: ${have ? `${have.policy}, ${have.rules.length} rules` : 'missing'}`,
      });
  }
  for (const [table, chains] of tables) {
    for (const [name, chain] of chains) {
      const foreignChain = table === 'filter' && !expected.has(name);
      if (foreignChain || (table !== 'filter' && chain.rules.length > 0))
        drift.push({ problem: 'namespace-foreign-rules', detail: `${table} ${name}` });
    }
  }
  return drift;
}

/** Reads and writes the filter table inside an instance's network namespace. */
export interface NamespaceFirewall {
  dump(netns: string): Promise<string>;
  /** Replaces the namespace's filter table (and empties `otherTables`) in one restore. */
  apply(netns: string, input: FirewallInput, otherTables?: readonly string[]): Promise<void>;
}

/** The real {@link NamespaceFirewall}: iptables-save/-restore run inside the namespace. */
export function createNamespaceFirewall(run: CommandRunner): NamespaceFirewall {
  return {
    async dump(netns) {
      return (await run('ip', ['netns', 'exec', netns, 'iptables-save'])).stdout;
    },
    async apply(netns, input, otherTables = []) {
      const script = namespaceScript(input, otherTables);
      await run('ip', ['netns', 'exec', netns, 'iptables-restore', '-w', '5'], { input: script });
    },
  };
}
