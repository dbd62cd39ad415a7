/**
 * What the processes these harnesses start inherit from this one: PATH (to find node and redis-server),
 * HOME and TMPDIR, and nothing else, so no setting of the caller leaks into a service under test.
 */
export function inheritedEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR'];
  return Object.fromEntries(
    keep.flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key] as string]])),
  );
}
