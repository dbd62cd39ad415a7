// What the density bench reads of the host's processes: the process tree, memory (PSS, RSS) and CPU
// time from /proc, and the host's used memory. Linux only; reading other users' /proc needs root.
import { readdirSync, readFileSync } from 'node:fs';

/** One process as /proc shows it. */
export interface HostProcess {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process ended between listing and reading
  }
};

/** Parses `/proc/<pid>/stat`: the comm is in parentheses and may itself hold spaces and parentheses. */
export function parseStat(text: string): { comm: string; ppid: number; cpuTicks: number } {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  // After the comm: state(0) ppid(1) … utime(11) stime(12).
  return {
    comm: text.slice(open + 1, close),
    ppid: Number(fields[1]),
    cpuTicks: Number(fields[11]) + Number(fields[12]),
  };
}

/** Every process now. */
export function listProcesses(): HostProcess[] {
  return readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    const stat = read(`/proc/${name}/stat`);
    if (stat === undefined) return [];
    const { comm, ppid } = parseStat(stat);
    return [{ pid: Number(name), ppid, comm }];
  });
}

/** `root` and every process below it. */
export function descendants(processes: readonly HostProcess[], root: number): HostProcess[] {
  const children = new Map<number, HostProcess[]>();
  for (const process of processes)
    children.set(process.ppid, [...(children.get(process.ppid) ?? []), process]);
  const found: HostProcess[] = [];
  const queue = processes.filter((process) => process.pid === root);
  while (queue.length > 0) {
    const next = queue.shift() as HostProcess;
    found.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return found;
}

/** A `kB` field of smaps_rollup or status, in bytes (0 when absent). */
export function kilobytesField(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
  return match ? Number(match[1]) * 1024 : 0;
}

/** Proportional set size: shared pages split between their users, so PSS sums to real use. */
export const pssBytes = (pid: number): number =>
  kilobytesField(read(`/proc/${pid}/smaps_rollup`) ?? '', 'Pss');
export const rssBytes = (pid: number): number => kilobytesField(read(`/proc/${pid}/status`) ?? '', 'VmRSS');
export const cpuTicks = (pid: number): number => {
  const stat = read(`/proc/${pid}/stat`);
  return stat === undefined ? 0 : parseStat(stat).cpuTicks;
};

/** The host's memory in use: MemTotal − MemAvailable (what the kernel could not hand out now). */
export function hostUsedBytes(): number {
  const info = read('/proc/meminfo') ?? '';
  return kilobytesField(info, 'MemTotal') - kilobytesField(info, 'MemAvailable');
}

export function hostTotalBytes(): number {
  return kilobytesField(read('/proc/meminfo') ?? '', 'MemTotal');
}

/** The pid of the process whose environment holds `name=value`, if one does. */
export function pidWithEnv(
  processes: readonly HostProcess[],
  name: string,
  value: string,
): number | undefined {
  const wanted = `${name}=${value}`;
  return processes.find((process) =>
    (read(`/proc/${process.pid}/environ`) ?? '').split('\0').includes(wanted),
  )?.pid;
}

/** The command line of `pid`, arguments joined by spaces. */
export const commandLine = (pid: number): string =>
  (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ');

/**
 * An upper bound of the `quantile` of a Prometheus histogram's observations between two scrapes: the
 * `le` of the first bucket whose count reaches it (Infinity when only `+Inf` does; NaN without any).
 */
export function histogramQuantile(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
  quantile: number,
): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (total <= 0) return Number.NaN;
  const rank = Math.ceil(quantile * total);
  for (const bound of bounds) if ((after.get(bound) ?? 0) - (before.get(bound) ?? 0) >= rank) return bound;
  return Infinity;
}

/** The cumulative buckets of one histogram in a `/metrics` exposition, summed over its label sets. */
export function histogramBuckets(exposition: string, name: string): Map<number, number> {
  const buckets = new Map<number, number>();
  const line = new RegExp(`^${name}_bucket\\{(?:[^}]*,)?le="([^"]+)"[^}]*\\} (\\S+)$`, 'gm');
  for (const match of exposition.matchAll(line)) {
    const bound = match[1] === '+Inf' ? Infinity : Number(match[1]);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(match[2]));
  }
  return buckets;
}
