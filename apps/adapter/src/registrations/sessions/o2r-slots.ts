/**
 * A cap on concurrent O2R subscriptions. Node serves O2R long-polls from the same 256 streaming
 * slots as app traffic (`/apps/.../app`, generated proxies, session trickle channels): following
 * 256 runners leaves none, and clients get 503 `server busy`. Runners without a slot rely on their
 * heartbeats' `session_ids` (at most one interval late) and get a slot as soon as one frees.
 */
export class O2RSlots {
  private readonly holders = new Set<object>();
  private readonly waiting = new Map<object, () => void>();

  constructor(readonly max: number) {}

  get used(): number {
    return this.holders.size;
  }

  /** Takes a slot for `owner`, or queues `onFree` to be called when one frees (then call again). */
  acquire(owner: object, onFree: () => void): boolean {
    if (this.holders.has(owner)) return true;
    if (this.holders.size < this.max) {
      this.waiting.delete(owner);
      this.holders.add(owner);
      return true;
    }
    this.waiting.set(owner, onFree);
    return false;
  }

  /** Gives `owner`'s slot (or its place in the queue) back, waking the longest waiter. */
  release(owner: object): void {
    this.waiting.delete(owner);
    if (!this.holders.delete(owner)) return;
    const next = this.waiting.entries().next().value;
    if (next === undefined) return;
    const [waiter, onFree] = next;
    this.waiting.delete(waiter);
    onFree();
  }
}
