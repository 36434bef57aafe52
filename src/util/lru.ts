// A bounded map that forgets the least recently used entry: caches of immutable things
// (drawings and thumbnails by drawing id) that must not grow without limit.

export class Lru<K, V> {
  private readonly entries = new Map<K, V>();
  /**
   * The most recently used key, which needs no moving: a hot key asked for again and again
   * (one event in an on-sale) would otherwise be deleted and set each time, and the Map's
   * table rebuilt every so many of those for the deleted places it keeps.
   */
  private newest: K | undefined;

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined && key !== this.newest) {
      // Re-insert to mark as most recently used (Map keeps insertion order).
      this.entries.delete(key);
      this.entries.set(key, value);
      this.newest = key;
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.newest = key;
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
    if (key === this.newest) this.newest = undefined;
  }

  clear(): void {
    this.entries.clear();
    this.newest = undefined;
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * The cached promise for `key`, or a new one from `create`. Concurrent callers share one
 * computation; a failed one is forgotten so the next call tries again.
 */
export function memoize<K, T>(cache: Lru<K, Promise<T>>, key: K, create: () => Promise<T>): Promise<T> {
  let value = cache.get(key);
  if (value === undefined) {
    value = create();
    cache.set(key, value);
    value.catch(() => cache.delete(key));
  }
  return value;
}
