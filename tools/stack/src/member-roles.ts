/**
 * What each member is, in a few words, for its first line. A member missing here is introduced by its
 * name and address alone.
 */
const ROLES: Readonly<Record<string, string>> = {
  redis: 'Redis: queues, records and state of every service (AOF, no eviction)',
  'redeemer-sim': 'redeemer simulator: stands in for the on-chain ticket redeemer',
  'redemption-handoff': 'redemption-handoff: takes winning tickets from Node and hands them to the redeemer',
  'node-sim': 'Node simulator: stands in for the Livepeer orchestrator (livepeer/node)',
  'instance-manager': 'instance-manager: starts and stops the app instances (local gVisor driver)',
  adapter: 'adapter: registers each ready app instance with Node as a runner',
  dashboard: 'dashboard: the queues and their jobs',
  verifier:
    "verifier (development layout: on the machine it measures, reaching Node's public port on loopback; " +
    'the platform runs it from deploy/platform)',
};

/** The first line a member's run prints: what it is, where it serves, its process id. */
export function introduceMember(member: { name: string; banner?: string }, pid: number | undefined): string {
  const role = ROLES[member.name] ?? member.name;
  const where = member.banner === undefined ? '' : ` at ${member.banner}`;
  return `${role}${where} (pid ${pid ?? 'none'})`;
}
