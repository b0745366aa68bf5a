/**
 * A small least-recently-used map, bounded so an instance serving many threads or many rotating
 * credential sets never grows without limit. Used for the OSS clients per credential set and for
 * the last revision seen per thread (revision-cache.ts).
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('LruMap capacity must be at least 1');
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Re-insert: Map keeps insertion order, so the first key is always the least recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The value without making it the most recently used. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }

  /** The least recently used key. */
  oldest(): K | undefined {
    const first = this.entries.keys().next();
    return first.done ? undefined : first.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}

/** A least-recently-used map of byte buffers bounded by their total size (the remembered revision bodies). */
export class ByteBoundedLruMap<K> {
  private readonly entries = new LruMap<K, Buffer>(Number.MAX_SAFE_INTEGER);
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: K): Buffer | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: Buffer): void {
    this.delete(key);
    // A value larger than the whole budget is simply not kept.
    if (value.length > this.maxBytes) return;
    this.entries.set(key, value);
    this.bytes += value.length;
    while (this.bytes > this.maxBytes) {
      const oldest = this.entries.oldest();
      if (oldest === undefined) break;
      this.delete(oldest);
    }
  }

  delete(key: K): void {
    const value = this.entries.peek(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.bytes -= value.length;
  }
}
