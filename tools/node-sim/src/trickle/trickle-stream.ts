import { NodeLimits } from '@sandbox/protocol';
import { Segment } from './segment';

const SLOTS = NodeLimits.trickleRetainedSegments;

/**
 * A trickle channel with Node's retention: five segment slots indexed by `seq % 5`, a write head
 * (`nextWrite`), and a closed flag. Reads of the write head (or of seq 1 before anything was
 * written) precreate the segment and wait for it; anything else not in a slot is gone (470).
 */
export class TrickleStream {
  readonly slots: Array<Segment | undefined> = new Array<Segment | undefined>(SLOTS).fill(undefined);
  nextWrite = 0;
  closed = false;

  constructor(
    readonly name: string,
    readonly mimeType: string,
  ) {}

  /** The segment a publisher writes `idx` into (`-1`: the write head); `exists` when already written. */
  getForWrite(requested: number): { segment: Segment; exists: boolean } {
    const idx = requested === -1 ? this.nextWrite : requested;
    const slot = idx % SLOTS;
    const current = this.slots[slot];
    if (current) {
      if (current.idx === idx) return { segment: current, exists: !current.isFresh() };
      // An older segment occupies the slot: it is evicted.
      current.close();
    }
    const segment = new Segment(idx);
    this.slots[slot] = segment;
    return { segment, exists: false };
  }

  /** Resolves `-1` (next write) and `-2` (latest write) and finds or precreates the segment. */
  getForRead(requested: number): { segment: Segment | undefined; latest: number; closed: boolean } {
    let idx = requested;
    if (idx === -1) idx = this.nextWrite;
    else if (idx === -2) idx = this.nextWrite > 0 ? this.nextWrite - 1 : 0;
    const slot = idx % SLOTS;
    let segment = this.slots[slot];
    const found = segment !== undefined && segment.idx === idx;
    if (!found && (idx === this.nextWrite || (this.nextWrite === 0 && idx === 1)) && !this.closed) {
      segment = new Segment(idx);
      this.slots[slot] = segment;
    }
    const exists = segment !== undefined && segment.idx === idx;
    return { segment: exists ? segment : undefined, latest: this.nextWrite, closed: this.closed };
  }

  /** Records that `idx` received its first bytes. */
  markWritten(idx: number): void {
    this.nextWrite = idx + 1;
  }

  close(): void {
    for (const segment of this.slots) segment?.close();
    this.slots.fill(undefined);
    this.closed = true;
  }
}

/** Node's in-process publisher: one whole message per segment, precreating the next one. */
export class LocalPublisher {
  #seq = 0;

  constructor(private readonly stream: TrickleStream) {}

  /** Publishes one segment; `false` when the stream is closed or the sequence is already taken. */
  write(data: Buffer): boolean {
    if (this.stream.closed) return false;
    const seq = this.#seq;
    const { segment, exists } = this.stream.getForWrite(seq);
    if (exists) return false;
    if (this.stream.getForWrite(seq + 1).exists) return false;
    this.#seq = seq + 1;
    if (data.length > 0) this.stream.markWritten(seq);
    const written = segment.write(data);
    segment.close();
    return written;
  }
}
