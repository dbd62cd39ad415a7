import type { FirewallInput, TableRules } from './firewall-rules';
import { instanceRules, tablesScript } from './firewall-rules';
import { harmlessBefore, targetOf } from './firewall-precedence';

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

function chainDrift(tables: SavedTables, part: TableRules): RuleDrift[] {
  const drift: RuleDrift[] = [];
  for (const chain of part.chains) {
    const expected = part.rules
      .filter((rule) => rule.startsWith(`-A ${chain} `))
      .map((rule) => rule.slice(chain.length + 4));
    const actual = tables.get(part.table)?.get(chain);
    if (!actual) {
      drift.push({ problem: 'chain-missing', detail: `${part.table} ${chain}` });
      continue;
    }
    // Rule by rule, as written: a rule replaced in place (same count, same last rule) is drift too.
    const at = Array.from({ length: Math.max(actual.length, expected.length) }, (_, index) => index).find(
      (index) => actual[index] !== expected[index],
    );
    if (at !== undefined)
      drift.push({
        problem: 'chain-altered',
        detail: `${part.table} ${chain} rule ${at + 1}: "${actual[at] ?? '(none)'}", "${expected[at] ?? '(none)'}" expected`,
      });
  }
  return drift;
}

function jumpDrift(
  tables: SavedTables,
  part: TableRules,
  input: FirewallInput,
  trusted: ReadonlySet<string>,
) {
  const drift: RuleDrift[] = [];
  const chains = tables.get(part.table) ?? new Map<string, string[]>();
  const context = { table: part.table, chains, trusted, instanceAddress: input.instanceAddress };
  for (const jump of part.jumps) {
    const [, chain = '', , ...rest] = jump.split(' ');
    const spec = rest.join(' ');
    const rules = chains.get(chain) ?? [];
    const at = rules.indexOf(spec);
    if (at < 0) {
      drift.push({ problem: 'jump-missing', detail: `${part.table} ${chain} ${spec}` });
      continue;
    }
    const first = rules.slice(0, at).find((rule) => !harmlessBefore(rule, spec, context));
    if (first !== undefined)
      drift.push({
        problem: 'jump-not-first',
        detail: `${part.table} ${chain}: "${first}" before "${spec}"`,
      });
  }
  return drift;
}

/**
 * How the host's rules differ from the ones this instance needs: a chain missing or not rule for rule
 * what the driver wrote, a jump missing, or a rule before a jump that could accept or translate the
 * instance's packets first. `trusted` names, exactly, the chains of this driver's instances (their
 * contents are checked by their own pass); no other chain is trusted by its name. Empty when the
 * instance's isolation is as the driver installed it.
 */
export function firewallDrift(
  tables: SavedTables,
  input: FirewallInput,
  trusted: ReadonlySet<string>,
): RuleDrift[] {
  return instanceRules(input).flatMap((part) => [
    ...chainDrift(tables, part),
    ...jumpDrift(tables, part, input, trusted),
  ]);
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
