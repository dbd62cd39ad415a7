/** Pure parts of the host clean-up: which rules, chains, sets and processes are the cluster's. */

/** Chains kubelet, kube-proxy and kube-router create all start with this. */
const OUR_CHAIN = /^KUBE-/;
/** kube-router's ipsets (policy controller: KUBE-DST-*, KUBE-SRC-*; IPv6 ones carry `inet6:`). */
const OUR_SET = /^(inet6:)?(KUBE-|kube-router-)/;

/** What to undo in one table, from its `iptables -S` listing. */
export interface TablePlan {
  /** `-D` argument lists for rules of built-in chains that jump to or mention our chains. */
  deleteRules: string[][];
  /** Our chains: flush all, then delete all. */
  chains: string[];
}

/** Splits an `iptables -S` line into arguments, honouring double quotes (comments). */
export function splitRule(line: string): string[] {
  const args: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let match = pattern.exec(line); match; match = pattern.exec(line)) {
    args.push(match[1] !== undefined ? match[1].replace(/\\"/g, '"') : (match[2] ?? ''));
  }
  return args;
}

/** Plans the removal of our chains and of every built-in chain rule that refers to them. */
export function planTable(listing: string): TablePlan {
  const chains: string[] = [];
  const deleteRules: string[][] = [];
  for (const line of listing.split('\n')) {
    const args = splitRule(line.trim());
    const [flag, chain] = args;
    if (!chain) continue;
    if (flag === '-N' && OUR_CHAIN.test(chain)) chains.push(chain);
    if (flag === '-A' && !OUR_CHAIN.test(chain) && /KUBE-|kube-router/.test(line)) {
      deleteRules.push(['-D', ...args.slice(1)]);
    }
  }
  return { deleteRules, chains };
}

/** Our ipsets among the names `ipset list -n` prints. */
export function ourIpsets(names: string): string[] {
  return names
    .split('\n')
    .map((name) => name.trim())
    .filter((name) => OUR_SET.test(name));
}

/** Programs that may mention the node directory without being part of the cluster (a shell, a pager). */
const BYSTANDERS = new Set([
  'bash',
  'sh',
  'dash',
  'zsh',
  'tail',
  'less',
  'cat',
  'grep',
  'vi',
  'vim',
  'node',
  'npm',
  'sudo',
  'watch',
  'ls',
  'find',
  'du',
  'jest',
]);

/** True when a process (its `comm` and NUL-separated `cmdline`) belongs to the cluster at `dir`. */
export function isClusterProcess(comm: string, cmdline: string, dir: string): boolean {
  if (BYSTANDERS.has(comm.trim())) return false;
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return cmdline.split('\0').some((arg) => arg === dir || arg.includes(prefix));
}

/** Cgroup directories under `kubepods`, deepest first (the order rmdir needs). */
export function deepestFirst(dirs: readonly string[]): string[] {
  return [...dirs].sort((a, b) => b.split('/').length - a.split('/').length || b.localeCompare(a));
}

/**
 * Kernel settings the kubelet rewrites at start (its "kernel tunables"); the cluster puts back the
 * values it found.
 */
export const KUBELET_SYSCTLS = [
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
] as const;
