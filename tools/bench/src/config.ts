/**
 * The environment each benchmark runs with: all of this process's, as when it is run by hand (a
 * benchmark may read REDIS_URL, PATH for podman and runsc, and so on).
 */
export function benchEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).flatMap(([key, value]) => (value === undefined ? [] : [[key, value]])),
  );
}
