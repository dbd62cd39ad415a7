/** What `npm run bench -- [path part] [--json FILE] [--compare FILE]` asked for. */
export interface BenchArgs {
  /** Only benches whose path contains this. */
  filter: string | undefined;
  /** Also write the run's JSON here (it is always written under `.bench/results/`). */
  json: string | undefined;
  /** An earlier run's JSON to print the deltas against. */
  compare: string | undefined;
}

export const USAGE = 'usage: npm run bench -- [path part] [--json FILE] [--compare FILE]';

/** Parses the runner's arguments; throws with the usage on anything it does not know. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = { filter: undefined, json: undefined, compare: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--json' || arg === '--compare') {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new Error(`${arg} needs a file\n${USAGE}`);
      args[arg === '--json' ? 'json' : 'compare'] = value;
      i += 1;
    } else if (arg.startsWith('--') || args.filter !== undefined) {
      throw new Error(`unexpected argument ${arg}\n${USAGE}`);
    } else {
      args.filter = arg;
    }
  }
  return args;
}
