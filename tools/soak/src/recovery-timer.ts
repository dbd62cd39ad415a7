/**
 * Times each fault's recovery: from the fault's end (its injection, or the SIGCONT / the refusal's end)
 * to the first snapshot whose every open condition ("pool of X short", "adapter not ready") is one
 * that has already cleared at least once since the fault. A pool that clients keep taking from is
 * short now and then however healthy the system is; what counts is that it filled again.
 */
export class RecoveryTimer {
  readonly #open = new Map<number, { endMs: number; seen: Set<string>; cleared: Set<string> }>();
  readonly #done = new Map<number, number>();

  /** Fault `id` ended at `endMs`; recovery is timed from then. */
  begin(id: number, endMs: number): void {
    this.#open.set(id, { endMs, seen: new Set(), cleared: new Set() });
  }

  /** A snapshot at `atMs` and the conditions open in it (none: whole). */
  observe(atMs: number, open: readonly string[]): void {
    const now = new Set(open);
    for (const [id, fault] of this.#open) {
      if (atMs < fault.endMs) continue;
      for (const key of fault.seen) if (!now.has(key)) fault.cleared.add(key);
      for (const key of now) fault.seen.add(key);
      if ([...now].every((key) => fault.cleared.has(key))) {
        this.#done.set(id, atMs - fault.endMs);
        this.#open.delete(id);
      }
    }
  }

  /** Faults still waiting, with since when (epoch ms). */
  pending(): [number, number][] {
    return [...this.#open].map(([id, fault]) => [id, fault.endMs]);
  }

  recoveryMs(id: number): number | undefined {
    return this.#done.get(id);
  }
}
