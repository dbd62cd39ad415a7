// Redis holds every service's records, the adapter's heartbeat credential among them: its files
// must be closed to every user but its own (and the volume's fsGroup, which is Redis's group).
import { check, type Log } from './check';
import { SYSTEM_NAMESPACE } from './install';
import type { Kubectl } from './kubectl';

/** `stat -c '%a %n'` lines whose mode gives others any access. */
export function openToOthers(statLines: readonly string[]): string[] {
  return statLines.filter((line) => (Number.parseInt(line.split(' ')[0] ?? '', 8) & 0o007) !== 0);
}

/** The data folder, the AOF folder and every file in it, as Redis wrote them on the cluster. */
export async function redisDataCheck(kubectl: Kubectl, log: Log): Promise<void> {
  const out = await kubectl.run(
    [
      ...['-n', SYSTEM_NAMESPACE, 'exec', 'redis-0', '-c', 'redis', '--'],
      ...['sh', '-c', "stat -c '%a %n' /data /data/appendonlydir /data/appendonlydir/*"],
    ],
    { timeoutMs: 60_000 },
  );
  const lines = out.trim().split('\n');
  check(
    log,
    `Redis's data is closed to others (${lines.length} paths: ${lines.map((l) => l.split(' ')[0]).join(' ')})`,
    [
      ...(lines.length < 4 ? [`expected the AOF files, found ${JSON.stringify(lines)}`] : []),
      ...openToOthers(lines),
    ],
  );
}
