// The loop of the kill -9 specs: follow a drain to its end while killing controllers at random moments.
import type { DrainRecord } from '@sandbox/protocol';

const TERMINAL: readonly string[] = ['done', 'aborted', 'failed'];

/** A seeded generator in [0, 1), so a failing run can be replayed with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 16_807) % 2_147_483_647;
    return state / 2_147_483_647;
  };
}

/**
 * Polls drain `id` at random moments (up to 1.5 s apart) until it ends, asking `shouldKill(kills)`
 * before each next poll and then running `kill`. Throws if the drain has not ended in `timeoutMs`.
 */
export async function followDrainWhileKilling(options: {
  id: string;
  read: (id: string) => Promise<DrainRecord | undefined>;
  random: () => number;
  shouldKill: (killsSoFar: number) => boolean;
  kill: () => Promise<void>;
  timeoutMs?: number;
}): Promise<DrainRecord> {
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  for (let kills = 0; Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, options.random() * 1_500));
    const record = await options.read(options.id);
    if (record !== undefined && TERMINAL.includes(record.phase)) return record;
    if (options.shouldKill(kills)) {
      kills += 1;
      await options.kill();
    }
  }
  throw new Error(`drain ${options.id} did not end: ${JSON.stringify(await options.read(options.id))}`);
}
