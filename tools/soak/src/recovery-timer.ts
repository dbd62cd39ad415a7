/**
 * Times each fault's recovery: from the fault's end (its injection, or the SIGCONT / the refusal's end)
 * to the first moment the system is whole again. Faults that overlap share that moment.
 */
export class RecoveryTimer {
  readonly #open = new Map<number, number>();
  readonly #done = new Map<number, number>();

  /** Fault `id` ended at `endMs`; recovery is timed from then. */
  begin(id: number, endMs: number): void {
    this.#open.set(id, endMs);
  }

  /** A snapshot at `atMs`: whole or not. Closes every open fault when whole. */
  observe(atMs: number, whole: boolean): void {
    if (!whole) return;
    for (const [id, endMs] of this.#open) {
      if (atMs < endMs) continue;
      this.#done.set(id, atMs - endMs);
      this.#open.delete(id);
    }
  }

  /** Faults still waiting, with since when (epoch ms). */
  pending(): [number, number][] {
    return [...this.#open];
  }

  recoveryMs(id: number): number | undefined {
    return this.#done.get(id);
  }
}
