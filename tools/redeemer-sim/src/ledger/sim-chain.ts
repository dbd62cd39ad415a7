import type { SimStore } from '../store/sim-store';

/** Options of {@link SimChain}. */
export interface SimChainOptions {
  readonly blockMs: number;
  readonly roundBlocks: number;
  readonly genesisMs: number;
  readonly now: () => number;
}

const OFFSET_KEY = 'block-offset';

/**
 * The simulated chain's round schedule: blocks derived from the time as node-sim does, plus an offset an
 * operator (or a test) can advance; the offset is stored, so a restart keeps the chain where it was.
 */
export class SimChain {
  constructor(
    private readonly store: SimStore,
    private readonly options: SimChainOptions,
  ) {}

  block(): bigint {
    const elapsed = Math.max(0, this.options.now() - this.options.genesisMs);
    return BigInt(Math.floor(elapsed / this.options.blockMs)) + this.offset();
  }

  round(): bigint {
    return this.block() / BigInt(this.options.roundBlocks);
  }

  offset(): bigint {
    return BigInt(this.store.meta(OFFSET_KEY) ?? '0');
  }

  advance(blocks: bigint): void {
    this.store.setMeta(OFFSET_KEY, (this.offset() + blocks).toString());
  }
}
