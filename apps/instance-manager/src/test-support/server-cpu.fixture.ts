import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** CPU seconds (user + system) one process has used, from /proc. */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds used by every process in `pid`'s cgroup: for a gVisor sandbox, the sentry, the gofer
 * and the systrap stubs that run the app's code (cgroup v1 `cpuacct.usage`, or v2 `cpu.stat`).
 */
export function cgroupCpuSeconds(pid: number): number {
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim().split('\n');
  for (const line of lines) {
    const [, controllers = '', path = '/'] = line.split(':');
    if (controllers.split(',').includes('cpuacct')) {
      // The root cgroup would count the whole machine.
      if (path === '/') throw new Error(`pid ${pid} is in the root cpuacct cgroup`);
      return Number(readFileSync(join('/sys/fs/cgroup', controllers, path, 'cpuacct.usage'), 'utf8')) / 1e9;
    }
  }
  const unified = lines.find((line) => line.startsWith('0::'));
  if (!unified) throw new Error(`no cpu accounting cgroup for pid ${pid}`);
  const stat = readFileSync(join('/sys/fs/cgroup', unified.slice(3), 'cpu.stat'), 'utf8');
  return Number(/usage_usec (\d+)/.exec(stat)?.[1] ?? Number.NaN) / 1e6;
}
