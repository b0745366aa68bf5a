/**
 * A reader's records, handed to its stream no faster than the reader takes them (docs/design/
 * reattach.md "Cost"; docs/protocol.md §6.15 "Limits"). A reader that reattaches far behind — before
 * a long answer — needs more than a stream may leave waiting for one reader (16 MiB, lib/http/
 * sse-source.ts); handed over at once, it counted as a reader that stopped reading and was let go, on
 * every retry, with nothing received (file-long seed 81). So records wait here, in order, as the
 * entries the follower holds anyway (encoded only when they go), and go out a slice at a time, each
 * once the reader took the ones before.
 *
 * Records a live producer on this instance pushes while a catch-up waits here queue behind it. They
 * are the one thing that grows while the reader does not read: past the stream's bound of them, the
 * reader is one that stopped reading, and everything goes to the stream at once so its bound lets
 * the reader go (docs/protocol.md §6.8), exactly as before pacing.
 */
import type { LogRecord } from '../journal/event-log.js';

/** What the stream tells of its reader (lib/http/sse.ts). */
export interface StreamFlow {
  /** Whether the reader has not taken everything sent yet. */
  backlogged(): boolean;
  /** Resolves once the reader took everything sent, or is gone. */
  drained(): Promise<void>;
  /** Bytes a reader may leave waiting before it counts as gone. */
  readonly maxWaitingBytes: number;
}

/** A stream whose reader is never behind (no flow to follow). */
export const UNPACED: StreamFlow = { backlogged: () => false, drained: async () => undefined, maxWaitingBytes: Number.POSITIVE_INFINITY };

/** The most SSE characters handed to the stream before the reader must take them. */
export const SLICE_CHARS = 1024 * 1024;

interface Waiting<Entry> {
  entry: Entry;
  /** Pushed by the live producer: counted against the stream's bound. */
  live: boolean;
}

export class PacedSender<Entry> {
  private queue: Array<Waiting<Entry>> = [];
  private head = 0;
  private liveChars = 0;
  private pausing = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly send: (records: readonly LogRecord[]) => void,
    private readonly encode: (entry: Entry) => LogRecord,
    private readonly flow: StreamFlow,
    private readonly signal: AbortSignal,
  ) {
    // A reader that left (or a stream stopped) takes nothing more: what waits is dropped, and no one
    // waits on a drain that may never come.
    signal.addEventListener('abort', () => this.pump(), { once: true });
  }

  /** Hands `entries` on after everything waiting; `live`: pushed by the producer as it produces. */
  push(entries: readonly Entry[], live = false): void {
    if (this.signal.aborted) return;
    for (const entry of entries) {
      this.queue.push({ entry, live });
      if (live) this.liveChars += this.encode(entry).sse.length;
    }
    if (this.liveChars > this.flow.maxWaitingBytes) {
      // The reader took nothing while more than the bound was produced: the stream's bound decides.
      this.sendSlice(Number.POSITIVE_INFINITY);
    }
    this.pump();
  }

  /** Resolves once everything pushed was handed to the stream (or the reader left). */
  idle(): Promise<void> {
    if (this.waitingCount() === 0 || this.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private waitingCount(): number {
    return this.queue.length - this.head;
  }

  private pump(): void {
    if (this.signal.aborted) {
      this.queue = [];
      this.head = 0;
    }
    while (!this.pausing && this.waitingCount() > 0) {
      this.sendSlice(SLICE_CHARS);
      if (this.waitingCount() > 0 && this.flow.backlogged()) {
        this.pausing = true;
        void this.flow.drained().then(() => {
          this.pausing = false;
          this.pump();
        });
        return;
      }
    }
    if (this.waitingCount() === 0) {
      this.queue = [];
      this.head = 0;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Hands the stream the waiting records up to `chars` (at least one). */
  private sendSlice(chars: number): void {
    const records: LogRecord[] = [];
    let sent = 0;
    while (this.head < this.queue.length && (records.length === 0 || sent < chars)) {
      const waiting = this.queue[this.head] as Waiting<Entry>;
      this.head += 1;
      const record = this.encode(waiting.entry);
      if (waiting.live) this.liveChars -= record.sse.length;
      records.push(record);
      sent += record.sse.length;
    }
    // What went out is let go of as it goes, not when the queue empties (a reader that never catches up).
    if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (records.length > 0) this.send(records);
  }
}
