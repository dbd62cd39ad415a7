import { NON_PUBLIC_IPV4_RANGES } from '@sandbox/protocol';
import type { InstanceNames } from './naming';

/** IPv4 ranges an instance never reaches, whatever its egress policy (shared with the kubernetes driver). */
export const NON_PUBLIC_RANGES: readonly string[] = NON_PUBLIC_IPV4_RANGES;

/** Egress policy of an instance. */
export type EgressPolicy = 'none' | 'internet';

/** What the rules of one instance depend on. */
export interface FirewallInput {
  names: InstanceNames;
  instanceAddress: string;
  egress: EgressPolicy;
  /** Destinations refused even with egress `internet`: non-public ranges, the instance subnet, host networks. */
  blockedRanges: readonly string[];
  /** TCP ports of our services and Redis, refused at any address. */
  protectedPorts: readonly number[];
}

const REJECT = '-j REJECT --reject-with icmp-admin-prohibited';
const MULTIPORT_LIMIT = 15;
/** Packets answering a connection opened towards the instance (or by it, on the ingress side), as iptables-save prints it. */
export const REPLY_ACCEPT = '-m conntrack --ctstate RELATED,ESTABLISHED --ctdir REPLY -j ACCEPT';

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
}

function egressChainRules(input: FirewallInput): string[] {
  const chain = input.names.egressChain;
  return [
    // Replies on connections the host opened to the app port, and only those: a flow the instance
    // opened itself is judged by every rule below on each packet, so one opened during a drift window
    // is refused again as soon as the rules are back.
    `-A ${chain} ${REPLY_ACCEPT}`,
    ...chunks([...new Set(input.protectedPorts)], MULTIPORT_LIMIT).map(
      (ports) => `-A ${chain} -p tcp -m multiport --dports ${ports.join(',')} ${REJECT}`,
    ),
    // Any address of the host itself: loopback, the veth's own address, every interface.
    `-A ${chain} -m addrtype --dst-type LOCAL ${REJECT}`,
    ...input.blockedRanges.map((range) => `-A ${chain} -d ${range} ${REJECT}`),
    ...(input.egress === 'internet' ? [`-A ${chain} -j ACCEPT`] : []),
    `-A ${chain} ${REJECT}`,
  ];
}

/** One table's part of an instance's rules: chains it declares (which empties them), their rules, the jumps. */
export interface TableRules {
  table: 'filter' | 'nat';
  chains: string[];
  rules: string[];
  /** Inserted first in the built-in chains; `-I CHAIN 1 …`. */
  jumps: string[];
}

/**
 * The rules of one instance, per table. Filter: everything the instance sends goes through its egress
 * chain (INPUT and FORWARD), everything forwarded to it through its ingress chain. Nat: its packets skip
 * the rest of PREROUTING, so no DNAT or REDIRECT added by another tool applies to them, and with egress
 * `internet` they are masqueraded to public destinations only.
 */
export function instanceRules(input: FirewallInput): TableRules[] {
  const { names } = input;
  const filter: TableRules = {
    table: 'filter',
    chains: [names.egressChain, names.ingressChain],
    rules: [
      ...egressChainRules(input),
      // Nothing but the host (which reaches the instance directly, not through FORWARD) opens connections to it.
      `-A ${names.ingressChain} ${REPLY_ACCEPT}`,
      `-A ${names.ingressChain} ${REJECT}`,
    ],
    jumps: [
      `-I INPUT 1 -i ${names.hostVeth} -j ${names.egressChain}`,
      `-I FORWARD 1 -i ${names.hostVeth} -j ${names.egressChain}`,
      `-I FORWARD 1 -o ${names.hostVeth} -j ${names.ingressChain}`,
    ],
  };
  const internet = input.egress === 'internet';
  const nat: TableRules = {
    table: 'nat',
    chains: [names.preroutingChain, ...(internet ? [names.natChain] : [])],
    rules: [
      `-A ${names.preroutingChain} -j ACCEPT`,
      ...(internet
        ? [
            ...input.blockedRanges.map((range) => `-A ${names.natChain} -d ${range} -j RETURN`),
            `-A ${names.natChain} -j MASQUERADE`,
          ]
        : []),
    ],
    jumps: [
      `-I PREROUTING 1 -i ${names.hostVeth} -j ${names.preroutingChain}`,
      ...(internet ? [`-I POSTROUTING 1 -s ${input.instanceAddress}/32 -j ${names.natChain}`] : []),
    ],
  };
  return [filter, nat];
}

/**
 * An `iptables-restore --noflush` script from table parts; `before` lines of a table (deletions of stale
 * jumps) come first inside its commit, so a table changes in one atomic step.
 */
export function tablesScript(
  tables: readonly TableRules[],
  before: ReadonlyMap<string, string[]> = new Map(),
): string {
  const lines = tables.flatMap((part) => [
    `*${part.table}`,
    ...part.chains.map((chain) => `:${chain} - [0:0]`),
    ...(before.get(part.table) ?? []),
    ...part.rules,
    ...part.jumps,
    'COMMIT',
  ]);
  return `${lines.join('\n')}\n`;
}

/**
 * The `iptables-restore --noflush` script that installs one instance's rules. Declaring a chain in
 * such a script creates it or empties it, so applying the script twice leaves one copy of each rule
 * except the jumps, which callers avoid by removing the instance's rules first.
 */
export function buildFirewallScript(input: FirewallInput): string {
  return tablesScript(instanceRules(input));
}

/** Chain names declared in `iptables-save` output, per table. */
export function parseChains(saveOutput: string): Map<string, Set<string>> {
  const tables = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of saveOutput.split('\n')) {
    if (line.startsWith('*')) {
      current = new Set();
      tables.set(line.slice(1).trim(), current);
    } else if (line.startsWith(':') && current) {
      const name = line.slice(1).split(' ')[0];
      if (name) current.add(name);
    }
  }
  return tables;
}

/**
 * The `iptables-restore --noflush` script that removes the given chains and every rule that jumps to
 * them, built from current `iptables-save` output so it only names what exists (a missing rule would
 * fail the whole script). Undefined when there is nothing to remove.
 */
export function buildRemovalScript(saveOutput: string, chains: ReadonlySet<string>): string | undefined {
  const sections: string[] = [];
  let table: string | undefined;
  let deletes: string[] = [];
  let owned: string[] = [];
  const flush = () => {
    if (table && (deletes.length > 0 || owned.length > 0)) {
      sections.push(
        `*${table}`,
        ...deletes,
        ...owned.map((c) => `-F ${c}`),
        ...owned.map((c) => `-X ${c}`),
        'COMMIT',
      );
    }
  };
  for (const line of saveOutput.split('\n')) {
    if (line.startsWith('*')) {
      flush();
      table = line.slice(1).trim();
      deletes = [];
      owned = [];
    } else if (line.startsWith(':')) {
      const name = line.slice(1).split(' ')[0] ?? '';
      if (chains.has(name)) owned.push(name);
    } else if (line.startsWith('-A ')) {
      const [, chain, ...rest] = line.split(' ');
      const jumpAt = rest.indexOf('-j');
      const target = jumpAt >= 0 ? rest[jumpAt + 1] : undefined;
      // Rules inside our own chains go with the flush; only jumps from other chains need deleting.
      if (chain && !chains.has(chain) && target && chains.has(target)) deletes.push(`-D ${line.slice(3)}`);
    }
  }
  flush();
  return sections.length > 0 ? `${sections.join('\n')}\n` : undefined;
}
