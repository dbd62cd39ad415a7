/**
 * This process's whole environment, for a child that must see what a shell would see (PATH for podman,
 * ip and python, HOME for caches, REDIS_URL and the like), as when it is run by hand.
 */
export function parentEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).flatMap(([key, value]) => (value === undefined ? [] : [[key, value]])),
  );
}
