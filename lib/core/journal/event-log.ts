/**
 * The producer's side of an execution's events (docs/protocol.md §4.1, §6.15): every event a run —
 * or a takeover of it — emits is placed here once, gets its position and SSE id, is journaled, and
 * is released to every reader on this instance (the run's own caller, subscribers that joined it)
 * as the same pre-encoded record, so the same event has the same id whoever reads it.
 *
 * Three jobs, one file each (docs/design/reattach.md "Cost"): bursts are gathered and merged
 * (burst.ts), placed events are written to the journal (journal-writer.ts), released records go to
 * the readers and a bounded tail is kept for readers that join later (fan-out.ts). This class
 * places events — positions, ids, SSE records — and releases each once nothing holds it back: an
 * event which must be journaled first (durability.ts) is released only once a write holding it has
 * landed, and so is everything placed after it; a takeover's start is written before anything is
 * released.
 */
import type { AguiEvent } from '../translate/events.js';
import type { EpochStart } from './batch.js';
import { BurstGatherer, type Placed } from './burst.js';
import { FanOut, type Joined, type LogReader, type LogRecord } from './fan-out.js';
import { JournalWriter, type JournalWriterOptions } from './journal-writer.js';
import { eventId, executionTag, type Position } from './position.js';

export { DELTA_OWNERS } from './burst.js';
export type { Joined, LogReader, LogRecord } from './fan-out.js';

/** The log's options are its journal writer's: the burst gatherer shares its `defer`. */
export type EventLogOptions = JournalWriterOptions;

export class EventLog {
  readonly tag: string;
  private seq = 0;
  private readonly bursts: BurstGatherer;
  private readonly writer: JournalWriter;
  private readonly fanOut = new FanOut();
  /** Placed, not yet released (behind a write that must land first). */
  private readonly outbox: LogRecord[] = [];
  private closed = false;
  private ended: Promise<void> | undefined;
  /** Another producer continues the run (fence()). */
  fenced = false;

  constructor(private readonly options: EventLogOptions) {
    this.tag = executionTag(options.executionId);
    this.bursts = new BurstGatherer(options.defer, (items) => this.place(items));
    this.writer = new JournalWriter(options, { landed: () => this.releaseReady(), fenced: () => this.fence() });
  }

  get epoch(): number {
    return this.options.epoch;
  }

  /** The position of the last record placed (released or not). */
  get lastPosition(): Position | undefined {
    return this.outbox.at(-1)?.position ?? this.fanOut.lastPosition;
  }

  /** The last seq of this epoch no longer kept here (0: none): the journal holds it and all before it. */
  get droppedThrough(): number {
    return this.fanOut.droppedThrough;
  }

  /** Told how many readers the log has after each join and leave (the run's presence, docs/protocol.md §6.15). */
  set onReaders(listener: ((count: number) => void) | undefined) {
    this.fanOut.onReaders = listener;
  }

  get readerCount(): number {
    return this.fanOut.readerCount;
  }

  /** The epoch's start, as its first batch says it. */
  get start(): EpochStart {
    return this.options.start;
  }

  /** Places one event emitted with the kernel text cursor `k` (position.ts). */
  emit(event: AguiEvent, k: number): void {
    if (!this.closed) this.bursts.emit(event, k);
  }

  /** See FanOut.join: a reader before droppedThrough reads that part from the journal first. */
  join(reader: LogReader, after?: Position): Joined {
    return this.fanOut.join(reader, after);
  }

  leave(reader: LogReader): void {
    this.fanOut.leave(reader);
  }

  /** Writes what is placed so far now (a run handing over to another instance). */
  async flush(): Promise<void> {
    this.bursts.flush();
    await this.writer.write(true);
  }

  /** Writes the epoch's start now (a takeover's fork point must be durable before anything it says). */
  async open(): Promise<void> {
    await this.writer.write(true);
  }

  /** Places what is gathered, writes everything, releases everything and ends every reader. */
  close(): Promise<void> {
    if (this.ended) return this.ended;
    this.bursts.flush();
    this.closed = true;
    this.writer.cancelFlush();
    this.ended = (async () => {
      while (!this.fenced && this.writer.pending) await this.writer.write(true);
      if (this.fenced) return;
      this.releaseReady();
      this.fanOut.end(false);
    })();
    return this.ended;
  }

  /**
   * Another producer continues the run (docs/design/reattach.md "Fence"): its fence in the journal
   * refused this log's next batch, or the run found its lease taken. Nothing placed and not yet
   * released is released or written, nothing placed later is; every reader is ended as fenced.
   */
  fence(): void {
    if (this.fenced) return;
    this.fenced = true;
    this.closed = true;
    this.bursts.drop();
    this.writer.stop();
    this.outbox.length = 0;
    this.ended ??= Promise.resolve();
    this.options.logger.info('event log fenced: another producer continues the run', { epoch: this.options.epoch, lastSeq: this.lastPosition?.seq });
    this.fanOut.end(true);
  }

  private place(items: readonly Placed[]): void {
    let mustWrite = false;
    for (const { event, k } of items) {
      this.seq += 1;
      const record = recordOf(this.tag, { epoch: this.options.epoch, seq: this.seq, k }, event);
      this.outbox.push(record);
      if (this.writer.add({ seq: this.seq, k, event }, record.sse.length)) mustWrite = true;
    }
    this.writer.schedule(mustWrite);
    this.releaseReady();
  }

  /** Releases every placed record not held back by a write that must land first. */
  private releaseReady(): void {
    if (this.fenced || this.writer.holdsAll) return;
    const holdFrom = this.writer.holdFrom();
    let count = 0;
    while (count < this.outbox.length && (this.outbox[count] as LogRecord).position.seq < holdFrom) count += 1;
    // The tail lets go only of what the journal holds — of anything once nothing more is journaled
    // (no journal, a failed write, the cap): a reader that needs what went then gets the clear error
    // (follow-execution.ts), as one who needs what the journal lacks does.
    const durable = this.writer.stopped ? Number.POSITIVE_INFINITY : this.writer.durableSeq;
    if (count === 0) {
      this.fanOut.trim(durable);
      return;
    }
    this.fanOut.release(this.outbox.splice(0, count), durable);
  }
}

/** An event at its position, with its SSE record encoded once for every reader (docs/protocol.md §4.1). */
export function recordOf(tag: string, at: Position, event: AguiEvent): LogRecord {
  const position = { epoch: at.epoch, seq: at.seq, k: at.k };
  const id = eventId(tag, position);
  return { position, id, event, sse: `id: ${id}\ndata: ${JSON.stringify(event)}\n\n` };
}
