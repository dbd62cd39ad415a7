import { describe, expect, it } from '@jest/globals';
import { buildRestoreScript, firewallDrift, parseSave } from './firewall-integrity';
import type { FirewallInput } from './firewall-rules';
import { buildFirewallScript, NON_PUBLIC_RANGES } from './firewall-rules';
import { instanceChains, instanceNames } from './naming';

const names = instanceNames('sbx', 'abcdefghij');
const input: FirewallInput = {
  names,
  instanceAddress: '10.213.0.2',
  egress: 'internet',
  blockedRanges: [...NON_PUBLIC_RANGES, '10.213.0.0/16'],
  protectedPorts: [6379],
};

/** The chains of this driver's own instances: ours and one other instance's of the same prefix. */
const trusted = new Set([...instanceChains(names), ...instanceChains(instanceNames('sbx', 'otherinsta'))]);

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
      ...extras.filter((line) => line.startsWith(':')),
    );
    for (const chain of BUILT_IN[name] ?? []) {
      const mine = (rules: string[]) => rules.filter((rule) => rule.startsWith(`-A ${chain} `));
      out.push(...mine(first), ...mine(rules), ...mine(last));
    }
    const own = (rule: string) => !BUILT_IN[name]?.some((chain) => rule.startsWith(`-A ${chain} `));
    out.push(...rules.filter(own), ...last.filter(own));
    out.push('COMMIT');
  }
  return `${out.join('\n')}\n`;
}

const problems = (save: string) =>
  firewallDrift(parseSave(save), input, trusted).map((drift) => drift.problem);

describe('firewallDrift', () => {
  it('finds nothing when the rules are as installed, whatever other tools appended after them', () => {
    expect(problems(hostSave())).toEqual([]);
    expect(problems(hostSave({ filter: ['-A INPUT -j ACCEPT', '-A FORWARD -j DOCKER-USER'] }))).toEqual([]);
  });

  it('finds a deleted jump', () => {
    const save = hostSave({}, ['-A INPUT -i sbxhabcdefghij -j SBX-abcdefghij-E']);
    expect(firewallDrift(parseSave(save), input, trusted)).toEqual([
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

  it('lets its own chains, rules for other interfaces and closed chains of other drivers precede the jumps', () => {
    const others = ['-I INPUT -i sbxhotherinsta -j SBX-otherinsta-E', '-I INPUT -i lo -j ACCEPT'];
    const closed = [
      ':TBX-zzzzzzzzzz-I - [0:0]',
      '-A TBX-zzzzzzzzzz-I -m conntrack --ctstate RELATED,ESTABLISHED --ctdir REPLY -j ACCEPT',
      '-A TBX-zzzzzzzzzz-I -j REJECT --reject-with icmp-admin-prohibited',
    ];
    expect(
      problems(
        hostSave({ filter: [...others, ...closed, '-I FORWARD -o tbxhzzzzzzzzzz -j TBX-zzzzzzzzzz-I'] }),
      ),
    ).toEqual([]);
  });

  it('trusts no chain by a name that merely fits the pattern: a look-alike that accepts is drift', () => {
    const lookAlike = [':QQZ-lookalike0-E - [0:0]', '-A QQZ-lookalike0-E -j ACCEPT'];
    const save = hostSave({ filter: [...lookAlike, '-I INPUT -i sbxhabcdefghij -j QQZ-lookalike0-E'] });
    expect(problems(save)).toEqual(['jump-not-first']);
    // Even with this driver's own prefix: only chains of instances it runs are trusted.
    const ownPrefix = [':SBX-zzzzzzzzzz-E - [0:0]', '-A SBX-zzzzzzzzzz-E -j ACCEPT'];
    const forward = '-I FORWARD -o sbxhzzzzzzzzzz -j SBX-zzzzzzzzzz-E';
    expect(problems(hostSave({ filter: [...ownPrefix, forward] }))).toEqual(['jump-not-first']);
  });

  it("accepts another driver's internet chain before the ingress jump only when it refuses this instance first", () => {
    const chain = (blocked: string) => [
      ':TBX-zzzzzzzzzz-E - [0:0]',
      `-A TBX-zzzzzzzzzz-E -d ${blocked} -j REJECT --reject-with icmp-admin-prohibited`,
      '-A TBX-zzzzzzzzzz-E -j ACCEPT',
    ];
    const jump = '-I FORWARD -i tbxhzzzzzzzzzz -j TBX-zzzzzzzzzz-E';
    expect(problems(hostSave({ filter: [...chain('10.0.0.0/8'), jump] }))).toEqual([]);
    expect(problems(hostSave({ filter: [...chain('192.168.0.0/16'), jump] }))).toEqual(['jump-not-first']);
  });

  it('finds a chain with a rule added or missing', () => {
    const accepting = hostSave().replace(/^(-A SBX-abcdefghij-E )/m, '$1-j ACCEPT\n$1');
    expect(problems(accepting)).toEqual(['chain-altered']);
    const save = hostSave()
      .replace(/^:SBX-abcdefghij-P.*\n/m, '')
      .replace(/^-A SBX-abcdefghij-P .*\n/m, '');
    expect(problems(save)).toEqual(['chain-missing']);
  });

  it('finds a rule replaced in place: same count, same last rule', () => {
    const reject = '-m addrtype --dst-type LOCAL -j REJECT --reject-with icmp-admin-prohibited';
    const replaced = hostSave().replace(
      `-A SBX-abcdefghij-E ${reject}`,
      '-A SBX-abcdefghij-E -m addrtype --dst-type LOCAL -j ACCEPT',
    );
    expect(replaced).not.toBe(hostSave());
    expect(firewallDrift(parseSave(replaced), input, trusted)).toEqual([
      expect.objectContaining({
        problem: 'chain-altered',
        detail: expect.stringContaining('--dst-type LOCAL -j ACCEPT'),
      }),
    ]);
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
