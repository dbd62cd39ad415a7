// Redis's files hold every service's records, the adapter's heartbeat credential among them, in
// plain text: only the user running Redis may read them. Redis has no setting for the mode of the
// files it writes, so it runs under umask 077, and a data folder left by an older stack is tightened.
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The umask Redis runs under: files 0600, folders 0700. */
export const REDIS_UMASK = '077';

/** `redis-server args…` under {@link REDIS_UMASK} (`exec`: the shell becomes Redis, same pid). */
export function redisCommand(args: readonly string[]): { command: string; args: string[] } {
  return {
    command: 'sh',
    args: ['-c', `umask ${REDIS_UMASK} && exec redis-server "$@"`, 'redis-server', ...args],
  };
}

/** Creates `dir` as 0700, and takes group and world bits off everything already under it. */
export function restrictRedisData(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) chmodSync(path, 0o700);
    else if (entry.isFile()) chmodSync(path, 0o600);
  }
}
