import { containsNetwork, parseCidr } from '@sandbox/protocol';
import { REPLY_ACCEPT } from './firewall-rules';

/** One table of `iptables-save` output: chain → rules (each rule's text after `-A CHAIN `), in order. */
export type SavedChains = ReadonlyMap<string, readonly string[]>;

/** What a rule before one of an instance's jumps is judged against. */
export interface PrecedenceContext {
  table: string;
  /** The table's chains as they are now, to look into the chains foreign rules jump to. */
  chains: SavedChains;
  /**
   * Chains this driver created, by exact name: their contents are verified rule by rule elsewhere,
   * so a jump to them cannot decide a packet in a way the driver did not write.
   */
  trusted: ReadonlySet<string>;
  /** The instance's address: the destination of every packet its ingress jump (`-o veth`) matches. */
  instanceAddress: string;
}

const STOPS = new Set(['REJECT', 'DROP']);
/**
 * The accepts a closed chain may hold: packets of flows that already exist (in either direction, as
 * drivers before this one wrote it). A chain that refuses every new flow can only pass packets of a
 * flow opened while rules were missing, and the instance's namespace layer refuses those on its side.
 */
const FLOW_ACCEPTS = new Set([REPLY_ACCEPT, '-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT']);

export function targetOf(rule: string): string | undefined {
  const tokens = rule.split(' ');
  const at = tokens.indexOf('-j');
  return at >= 0 ? tokens[at + 1] : undefined;
}

/** The literal, not negated value of `flag` (`-i`/`-o`/`-s`) a rule is limited to, if any. */
function matchOf(rule: string, flag: '-i' | '-o' | '-s'): string | undefined {
  const tokens = rule.split(' ');
  const at = tokens.indexOf(flag);
  const value = at >= 0 ? tokens[at + 1] : undefined;
  if (!value || tokens[at - 1] === '!' || value.endsWith('+')) return undefined;
  // Two sources are disjoint only when both are single addresses.
  return flag === '-s' && !value.endsWith('/32') ? undefined : value;
}

/** True for `-j REJECT…`/`-j DROP` alone, or limited to a destination that holds `destination`. */
function stopsPacketTo(rule: string, destination: string | undefined): boolean {
  const unconditional = /^-j (REJECT|DROP)( --reject-with \S+)?$/.test(rule);
  if (unconditional) return true;
  const limited = /^-d (\S+) -j (REJECT|DROP)( --reject-with \S+)?$/.exec(rule);
  return Boolean(
    limited?.[1] && destination && containsNetwork(parseCidr(limited[1]), parseCidr(`${destination}/32`)),
  );
}

/**
 * Whether a foreign filter chain can only refuse the packets in question (or hand them back to the
 * caller): rules that reject or drop, the accepts of existing flows a closed chain may hold, and an
 * unconditional ACCEPT only after a rule that certainly stopped a packet bound for `destination`.
 * Anything else (an ACCEPT with other matches, a jump on to another chain, RETURN) could let a packet
 * past the instance's own rules. Judged by contents, never by name: a chain named like a driver's
 * chain is as foreign as any other.
 */
function cannotAccept(rules: readonly string[], destination: string | undefined): boolean {
  for (const rule of rules) {
    const target = targetOf(rule) ?? '';
    if (STOPS.has(target)) {
      if (stopsPacketTo(rule, destination)) return true;
      continue;
    }
    if (!FLOW_ACCEPTS.has(rule)) return false;
  }
  return true;
}

/**
 * True when a rule placed before one of our jumps cannot decide the fate of that jump's packets in a
 * way the driver did not write: a jump to one of the driver's own chains (exact names), a rule limited
 * to another interface or another single source on the side the jump matches, a rule that can only
 * refuse, or (filter table) a jump to a chain whose contents can only refuse. Anything else (an
 * ACCEPT, a jump to Docker's, ufw's or kube-proxy's chains, a look-alike chain) could accept or
 * rewrite the packets first.
 */
export function harmlessBefore(rule: string, jump: string, context: PrecedenceContext): boolean {
  const target = targetOf(rule) ?? '';
  if (context.trusted.has(target)) return true;
  for (const flag of ['-i', '-o', '-s'] as const) {
    const ours = matchOf(jump, flag);
    const theirs = matchOf(rule, flag);
    if (ours && theirs && theirs !== ours) return true;
  }
  if (context.table !== 'filter') return false;
  if (STOPS.has(target)) return true;
  const chain = context.chains.get(target);
  const destination = matchOf(jump, '-o') ? context.instanceAddress : undefined;
  return chain !== undefined && cannotAccept(chain, destination);
}
