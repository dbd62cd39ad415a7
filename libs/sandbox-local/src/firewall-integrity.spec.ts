import { describe, expect, it } from '@jest/globals';
import { buildRestoreScript, firewallDrift, parseSave } from './firewall-integrity';
import type { FirewallInput } from './firewall-rules';
import { buildFirewallScript, NON_PUBLIC_RANGES } from './firewall-rules';
import { instanceNames } from './naming';

const names = instanceNames('sbx', 'abcdefghij');
const input: FirewallInput = {
  names,
  instanceAddress: '10.213.0.2',
  egress: 'internet',
  blockedRanges: [...NON_PUBLIC_RANGES, '10.213.0.0/16'],
  protectedPorts: [6379],
};

const BUILT_IN: Record<string, string[]> = {
  filter: ['INPUT', 'FORWARD', 'OUTPUT'],
  nat: ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'],
};

/**
 * The `iptables-save` text of a host where the script was applied: `extra` rules (`-A`/`-I` lines of
 * other tools, per table) are added after or before ours, and `drop` lines are left out.
 */
function hostSave(extra: Record<string, string[]> = {}, drop: string[] = []): string {
  const out: string[] = [];
  let table = '';
  const sections = new Map<string, { chains: string[]; rules: string[] }>();
  for (const line of buildFirewallScript(input).trim().split('\n')) {
    if (line.startsWith('*')) sections.set((table = line.slice(1)), { chains: [], rules: [] });
    else if (line.startsWith(':')) sections.get(table)?.chains.push(line);
    else if (line !== 'COMMIT') sections.get(table)?.rules.push(line.replace(/^-I (\S+) 1 /, '-A $1 '));
  }
  for (const [name, section] of sections) {
    const rules = section.rules.filter((rule) => !drop.includes(rule));
    const extras = extra[name] ?? [];
    const first = extras
      .filter((rule) => rule.startsWith('-I '))
      .map((rule) => rule.replace(/^-I (\S+) /, '-A $1 '));
    const last = extras.filter((rule) => rule.startsWith('-A '));
    out.push(
      `*${name}`,
      ...(BUILT_IN[name] ?? []).map((chain) => `:${chain} ACCEPT [0:0]`),
      ...section.chains,
    );
    for (const chain of BUILT_IN[name] ?? []) {
      const mine = (rules: string[]) => rules.filter((rule) => rule.startsWith(`-A ${chain} `));
      out.push(...mine(first), ...mine(rules), ...mine(last));
    }
    out.push(...rules.filter((rule) => !BUILT_IN[name]?.some((chain) => rule.startsWith(`-A ${chain} `))));
    out.push('COMMIT');
  }
  return `${out.join('\n')}\n`;
}

const problems = (save: string) => firewallDrift(parseSave(save), input).map((drift) => drift.problem);

describe('firewallDrift', () => {
  it('finds nothing when the rules are as installed, whatever other tools appended after them', () => {
    expect(problems(hostSave())).toEqual([]);
    expect(problems(hostSave({ filter: ['-A INPUT -j ACCEPT', '-A FORWARD -j DOCKER-USER'] }))).toEqual([]);
  });

  it('finds a deleted jump', () => {
    const save = hostSave({}, ['-A INPUT -i sbxhabcdefghij -j SBX-abcdefghij-E']);
    expect(firewallDrift(parseSave(save), input)).toEqual([
      { problem: 'jump-missing', detail: 'filter INPUT -i sbxhabcdefghij -j SBX-abcdefghij-E' },
    ]);
  });

  it('finds a foreign rule inserted first, as Docker, kube-proxy or ufw would', () => {
    expect(problems(hostSave({ filter: ['-I INPUT -j ACCEPT'] }))).toEqual(['jump-not-first']);
    expect(problems(hostSave({ filter: ['-I FORWARD -j DOCKER-USER'] }))).toEqual([
      'jump-not-first',
      'jump-not-first',
    ]);
    expect(problems(hostSave({ nat: ['-I PREROUTING -j KUBE-SERVICES'] }))).toEqual(['jump-not-first']);
    expect(problems(hostSave({ nat: ['-I POSTROUTING -j ACCEPT'] }))).toEqual(['jump-not-first']);
    expect(problems(hostSave({ filter: ['-I INPUT ! -i sbxhother -j ACCEPT'] }))).toEqual(['jump-not-first']);
  });

  it('lets rules of other local drivers and rules for other interfaces precede the jumps', () => {
    const others = ['-I INPUT -i sbxhotherinsta -j SBX-otherinsta-E', '-I INPUT -i lo -j ACCEPT'];
    expect(
      problems(hostSave({ filter: [...others, '-I FORWARD -o tbxhzzzzzzzzzz -j TBX-zzzzzzzzzz-I'] })),
    ).toEqual([]);
  });

  it('finds a chain with a rule added or missing', () => {
    const accepting = hostSave().replace(/^(-A SBX-abcdefghij-E )/m, '$1-j ACCEPT\n$1');
    expect(problems(accepting)).toEqual(['chain-altered']);
    const save = hostSave()
      .replace(/^:SBX-abcdefghij-P.*\n/m, '')
      .replace(/^-A SBX-abcdefghij-P .*\n/m, '');
    expect(problems(save)).toEqual(['chain-missing']);
  });
});

describe('buildRestoreScript', () => {
  it('refills the chains and moves the jumps first, in one commit per table', () => {
    const save = hostSave({ filter: ['-I INPUT -j ACCEPT'] }, [
      '-A FORWARD -o sbxhabcdefghij -j SBX-abcdefghij-I',
    ]);
    const script = buildRestoreScript(parseSave(save), input);
    const filter = script.slice(0, script.indexOf('COMMIT'));
    expect(filter).toContain(':SBX-abcdefghij-E - [0:0]');
    expect(filter).toContain('-D INPUT -i sbxhabcdefghij -j SBX-abcdefghij-E');
    expect(filter).not.toContain('-D FORWARD -o sbxhabcdefghij');
    expect(filter).not.toContain('-D INPUT -j ACCEPT');
    expect(filter.indexOf('-D INPUT')).toBeLessThan(filter.indexOf('-I INPUT 1 -i sbxhabcdefghij'));
    expect(script.match(/^COMMIT$/gm)).toHaveLength(2);
  });
});
