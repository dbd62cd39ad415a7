import { bytesToHex, keccak256, uint256Bytes } from '@sandbox/tickets';
import type { Clock } from '@sandbox/service-kit';

/** Blocks every 12 s and rounds of 5760 blocks, derived from the clock (there is no chain here). */
const BLOCK_MS = 12_000;
const ROUND_BLOCKS = 5_760n;

/** The slice of chain state Node's payment path reads: current block, round and round block hash. */
export class SimulatedChain {
  constructor(private readonly clock: Clock) {}

  block(): bigint {
    return BigInt(Math.floor(this.clock.now() / BLOCK_MS));
  }

  round(): bigint {
    return this.block() / ROUND_BLOCKS;
  }

  roundBlockHash(round: bigint): string {
    return bytesToHex(keccak256(new TextEncoder().encode('node-sim round'), uint256Bytes(round)));
  }
}
