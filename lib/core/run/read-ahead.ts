/**
 * An A2A stream read one item ahead of the run consuming it (docs/architecture.md §2.3, §2.4):
 * while the run awaits a write an item made necessary (new identities, an accepted answer), the
 * next item is already being received and decoded. Only the reading overlaps the write — the run
 * still takes items one at a time, in order, and emits nothing of an item before the writes that
 * gate it (docs/protocol.md §6.9), so a failed write shows nothing read meanwhile.
 */
export class ReadAhead<T> {
  private readonly iterator: AsyncIterator<T>;
  /** The read started ahead of the consumer, if any. */
  private ahead: Promise<IteratorResult<T>> | undefined;

  constructor(source: AsyncIterable<T>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  /** The next item: the one read ahead, or a fresh read. */
  next(): Promise<IteratorResult<T>> {
    const next = this.ahead ?? this.iterator.next();
    this.ahead = undefined;
    return next;
  }

  /** Starts reading the following item now; its outcome (an item or an error) waits for `next`. */
  readNext(): void {
    if (this.ahead) return;
    const ahead = this.iterator.next();
    // Not lost: `next` hands it over, and an error thrown by it is met there.
    ahead.catch(() => undefined);
    this.ahead = ahead;
  }

  /**
   * Stops reading and closes the source. With a read in flight the source is closed once that read
   * settles (an async generator queues a close behind its running step anyway); callers read ahead
   * only while the stream can still go on, so a stream that reached its stop state has nothing in
   * flight.
   */
  async close(): Promise<void> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (!ahead) {
      await this.iterator.return?.();
      return;
    }
    void ahead.then(
      () => this.iterator.return?.(),
      () => undefined,
    );
  }
}
