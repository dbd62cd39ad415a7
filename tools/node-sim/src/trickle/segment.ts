/** Maximum bytes of one trickle segment (Node's default). */
export const MAX_SEGMENT_BYTES = 10_000_000;

/** One trickle segment: written progressively, read by any number of subscribers until closed. */
export class Segment {
  readonly chunks: Buffer[] = [];
  closed = false;
  #bytes = 0;
  #wake: Array<() => void> = [];

  constructor(readonly idx: number) {}

  /** Subscribers currently waiting for the next write or close. */
  get waiting(): number {
    return this.#wake.length;
  }

  /** Not yet written to and not closed: a precreated slot that a publisher may still claim. */
  isFresh(): boolean {
    return !this.closed && this.#bytes === 0;
  }

  /** Appends data; `false` when the segment would exceed {@link MAX_SEGMENT_BYTES}. */
  write(data: Buffer): boolean {
    if (data.length > MAX_SEGMENT_BYTES - this.#bytes) return false;
    this.chunks.push(data);
    this.#bytes += data.length;
    this.#notify();
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#notify();
  }

  /** Resolves on the next write or close (or at once if `signal` aborts). */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const wake = (): void => {
        signal.removeEventListener('abort', abandon);
        resolve();
      };
      const abandon = (): void => {
        this.#wake = this.#wake.filter((entry) => entry !== wake);
        resolve();
      };
      this.#wake.push(wake);
      signal.addEventListener('abort', abandon, { once: true });
    });
  }

  #notify(): void {
    const waiting = this.#wake;
    this.#wake = [];
    for (const wake of waiting) wake();
  }
}
