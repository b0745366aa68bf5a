/**
 * A small least-recently-used map, bounded so an instance serving many threads or many rotating
 * credential sets never grows without limit. Used for the OSS clients per credential set and for
 * the last revision (and its writeId) seen per thread.
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

/** The newest revision this process has seen committed per thread, and that revision's writeId. */
export interface SeenRevision {
  revision: number;
  writeId: string;
}

export class RevisionCache {
  private readonly seen: LruMap<string, SeenRevision>;

  constructor(capacity = 10_000) {
    this.seen = new LruMap(capacity);
  }

  /** The writeId of `revision` when it is the one remembered for this thread. */
  writeIdOf(threadPrefix: string, revision: number): string | undefined {
    const entry = this.seen.get(threadPrefix);
    return entry?.revision === revision ? entry.writeId : undefined;
  }

  /** The newest committed revision this process has seen for the thread. */
  newest(threadPrefix: string): number | undefined {
    return this.seen.get(threadPrefix)?.revision;
  }

  /** Remembers a committed revision; never moves a thread backwards. */
  remember(threadPrefix: string, entry: SeenRevision): void {
    const current = this.seen.get(threadPrefix);
    if (current === undefined || current.revision <= entry.revision) this.seen.set(threadPrefix, entry);
  }
}
