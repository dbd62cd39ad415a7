import type { FirewallInput, TableRules } from './firewall-rules';
import { instanceRules, tablesScript } from './firewall-rules';
import { ANY_DRIVER_CHAIN } from './naming';

/** `iptables-save` output as table → chain → rules (each rule's text after `-A CHAIN `), in order. */
export type SavedTables = Map<string, Map<string, string[]>>;

/** Parses `iptables-save` output into {@link SavedTables}. */
export function parseSave(output: string): SavedTables {
  const tables: SavedTables = new Map();
  let chains: Map<string, string[]> | undefined;
  for (const line of output.split('\n')) {
    if (line.startsWith('*')) tables.set(line.slice(1).trim(), (chains = new Map()));
    else if (line.startsWith(':') && chains) chains.set(line.slice(1).split(' ')[0] ?? '', []);
    else if (line.startsWith('-A ') && chains) {
      const [, chain = '', ...rest] = line.split(' ');
      const rules = chains.get(chain) ?? [];
      rules.push(rest.join(' '));
      chains.set(chain, rules);
    }
  }
  return tables;
}

/** One way an instance's rules differ from what the driver installed. */
export interface RuleDrift {
  problem: 'chain-missing' | 'chain-altered' | 'jump-missing' | 'jump-not-first';
  detail: string;
}

function targetOf(rule: string): string | undefined {
  const tokens = rule.split(' ');
  const at = tokens.indexOf('-j');
  return at >= 0 ? tokens[at + 1] : undefined;
}

/** The literal, not negated interface a rule is limited to by `flag` (`-i`/`-o`), if any. */
function interfaceOf(rule: string, flag: '-i' | '-o'): string | undefined {
  const tokens = rule.split(' ');
  const at = tokens.indexOf(flag);
  const name = at >= 0 ? tokens[at + 1] : undefined;
  return name && tokens[at - 1] !== '!' && !name.endsWith('+') ? name : undefined;
}

/**
 * True when a rule placed before one of our jumps cannot decide the fate of that jump's packets: a
 * jump of a local driver (ours or another prefix's, whose chains end in REJECT), or a rule limited to
 * another interface on the side the jump matches. Anything else (an ACCEPT, a jump to Docker's,
 * ufw's or kube-proxy's chains) could accept or rewrite the packets first.
 */
function harmlessBefore(rule: string, jump: string): boolean {
  if (ANY_DRIVER_CHAIN.test(targetOf(rule) ?? '')) return true;
  for (const flag of ['-i', '-o'] as const) {
    const ours = interfaceOf(jump, flag);
    const theirs = interfaceOf(rule, flag);
    if (ours && theirs && theirs !== ours) return true;
  }
  return false;
}

function chainDrift(tables: SavedTables, part: TableRules): RuleDrift[] {
  const drift: RuleDrift[] = [];
  for (const chain of part.chains) {
    const expected = part.rules.filter((rule) => rule.startsWith(`-A ${chain} `));
    const actual = tables.get(part.table)?.get(chain);
    if (!actual) drift.push({ problem: 'chain-missing', detail: `${part.table} ${chain}` });
    else if (
      actual.length !== expected.length ||
      targetOf(actual.at(-1) ?? '') !== targetOf(expected.at(-1) ?? '')
    ) {
      drift.push({
        problem: 'chain-altered',
        detail: `${part.table} ${chain}: ${actual.length} rules, ${expected.length} expected`,
      });
    }
  }
  return drift;
}

function jumpDrift(tables: SavedTables, part: TableRules): RuleDrift[] {
  const drift: RuleDrift[] = [];
  for (const jump of part.jumps) {
    const [, chain = '', , ...rest] = jump.split(' ');
    const spec = rest.join(' ');
    const rules = tables.get(part.table)?.get(chain) ?? [];
    const at = rules.indexOf(spec);
    if (at < 0) {
      drift.push({ problem: 'jump-missing', detail: `${part.table} ${chain} ${spec}` });
      continue;
    }
    const first = rules.slice(0, at).find((rule) => !harmlessBefore(rule, spec));
    if (first !== undefined)
      drift.push({
        problem: 'jump-not-first',
        detail: `${part.table} ${chain}: "${first}" before "${spec}"`,
      });
  }
  return drift;
}

/**
 * How the host's rules differ from the ones this instance needs: a chain missing or with rules added
 * or removed, a jump missing, or a rule before a jump that could accept or translate the instance's
 * packets first. Empty when the instance's isolation is as the driver installed it.
 */
export function firewallDrift(tables: SavedTables, input: FirewallInput): RuleDrift[] {
  return instanceRules(input).flatMap((part) => [...chainDrift(tables, part), ...jumpDrift(tables, part)]);
}

/**
 * The `iptables-restore --noflush` script that puts one instance's rules back: in each table's single
 * commit, the chains are emptied and refilled, every existing jump to them is deleted and the jumps are
 * inserted first again. No packet sees the instance without its rules at any point.
 */
export function buildRestoreScript(tables: SavedTables, input: FirewallInput): string {
  const parts = instanceRules(input);
  const deletes = new Map<string, string[]>();
  for (const part of parts) {
    const owned = new Set(part.chains);
    const lines: string[] = [];
    for (const [chain, rules] of tables.get(part.table) ?? []) {
      if (owned.has(chain)) continue;
      for (const rule of rules) if (owned.has(targetOf(rule) ?? '')) lines.push(`-D ${chain} ${rule}`);
    }
    deletes.set(part.table, lines);
  }
  return tablesScript(parts, deletes);
}
