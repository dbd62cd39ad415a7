/**
 * The soak's one source of randomness: a seeded PRNG (mulberry32), so that a run with the same seed
 * plans the same faults at the same offsets and replays.
 */
export interface Prng {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
}

/** A seed as the command line gives it: an unsigned 32-bit integer. */
export function parseSeed(text: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffff_ffff)
    throw new Error(`--seed must be an integer from 0 to ${0xffff_ffff}, not "${text}"`);
  return Number(text);
}

export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    seed,
    next,
    int: (min, max) => {
      if (!Number.isInteger(min) || !Number.isInteger(max) || max < min)
        throw new Error(`int(${min}, ${max}): bounds must be integers with min <= max`);
      return min + Math.floor(next() * (max - min + 1));
    },
    pick: (items) => {
      if (items.length === 0) throw new Error('pick: the list is empty');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
  };
}
