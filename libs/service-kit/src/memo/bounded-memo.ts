/**
 * Values by a string key, forgotten all at once when full: for results of pure functions whose inputs
 * repeat (request options per URL, Node's answers per text). Clearing instead of evicting one by one
 * keeps a lookup to one `Map#get`; keys that never repeat (a URL per O2R segment) cannot grow it.
 */
export class BoundedMemo<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  set(key: string, value: V): void {
    if (this.values.size >= this.maxEntries) this.values.clear();
    this.values.set(key, value);
  }
}
