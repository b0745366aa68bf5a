/**
 * The producer's side of an execution's events (docs/protocol.md §4.1, §6.15): every event a run —
 * or a takeover of it — emits is placed here once, gets its position and SSE id, is journaled, and
 * is released to every reader on this instance (the run's own caller, subscribers that joined it)
 * as the same pre-encoded record, so the same event has the same id whoever reads it.
 *
 * Bursts: an event after a quiet moment is placed at once; the events that follow it in the same
 * turn of the event loop are gathered and placed together when that turn is done, consecutive
 * deltas of one message or tool call merged into one event (their concatenation is the message;
 * a merged delta takes the position of its last part). A lone event waits for nothing.
 *
 * Journaling: events are written in batches — at most one write per `flushMs` for content — except
 * that an event which must be journaled first (durability.ts) is released only once a write holding
 * it has landed, and so is everything placed after it. The epoch's first batch (its start) is
 * written before anything is released. A journal that cannot be written stops being written (the
 * stream goes on; a reader then gets a clear error instead of a gap, docs/protocol.md §6.15).
 */
import { errorFields } from '../error-fields.js';
import { type EventJournal, type Logger, StoreError } from '../ports.js';
import type { AguiEvent } from '../translate/events.js';
import type { EpochStart, JournalBatch, JournalEntry } from './batch.js';
import { mustBeJournaledFirst } from './durability.js';
import { eventId, executionTag, type Position } from './position.js';

export interface LogRecord {
  position: Position;
  id: string;
  event: AguiEvent;
  /** The SSE record: `id: <id>\ndata: <json>\n\n` (docs/protocol.md §4.1). */
  sse: string;
}

export interface LogReader {
  /** Released records, in order; one call per release. */
  push(records: readonly LogRecord[]): void;
  /**
   * The log closed: every record has been released — or, `fenced`, another producer continues the
   * run and this log says nothing more (EventLog.fence): a reader follows the journal from here.
   */
  end(fenced?: boolean): void;
}

export interface EventLogOptions {
  /** Undefined: positions and ids only, nothing journaled (a store without a journal). */
  journal: EventJournal | undefined;
  threadId: string;
  executionId: string;
  epoch: number;
  start: EpochStart;
  /** Runs `task` once the current turn of the event loop is done (setImmediate). */
  defer: (task: () => void) => void;
  /** At most one journal write per this many ms while only content is placed. */
  flushMs: number;
  /** The journal of one epoch stops growing past this many bytes. */
  maxBytes: number;
  /** Each batch says when it was written (the journal's expiry counts from the newest); Date.now without it. */
  clock?: () => number;
  logger: Logger;
}

/** The fields whose value names what a mergeable delta belongs to (docs/protocol.md §4.1). */
export const DELTA_OWNERS: Readonly<Record<string, 'messageId' | 'toolCallId'>> = {
  TEXT_MESSAGE_CONTENT: 'messageId',
  REASONING_MESSAGE_CONTENT: 'messageId',
  TOOL_CALL_ARGS: 'toolCallId',
};

interface Placed {
  event: AguiEvent;
  k: number;
}

export class EventLog {
  readonly tag: string;
  private seq = 0;
  /** The burst being gathered, if any. */
  private gathered: Placed[] | undefined;
  /** Placed, not yet released (behind a write that must land first). */
  private readonly outbox: LogRecord[] = [];
  /** Seqs that must be durable before they are released, in order. */
  private readonly barriers: number[] = [];
  /** Placed, not yet handed to the journal, and about how many bytes they make (their SSE records'). */
  private unwritten: JournalEntry[] = [];
  private unwrittenBytes = 0;
  private durableSeq = 0;
  private startWritten = false;
  private writing: Promise<void> | undefined;
  private writeDue = false;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private broken = false;
  private bytes = 0;
  private closed = false;
  private readonly readers = new Set<LogReader>();
  /** Every record released so far, for readers that join later (a subscriber on this instance). */
  private readonly released: LogRecord[] = [];
  private ended: Promise<void> | undefined;
  /** Every reader has been ended: a reader that joins now is ended at once. */
  private finished = false;
  /** Another producer continues the run (fence()). */
  fenced = false;
  /** Told how many readers the log has after each join and leave (the run's presence, docs/protocol.md §6.15). */
  onReaders: ((count: number) => void) | undefined;

  constructor(private readonly options: EventLogOptions) {
    this.tag = executionTag(options.executionId);
    if (!options.journal) {
      this.broken = true;
      this.startWritten = true;
    }
  }

  get epoch(): number {
    return this.options.epoch;
  }

  /** The position of the last record placed (released or not). */
  get lastPosition(): Position | undefined {
    return this.outbox.at(-1)?.position ?? this.released.at(-1)?.position;
  }

  /** Places one event emitted with the kernel text cursor `k` (position.ts). */
  emit(event: AguiEvent, k: number): void {
    if (this.closed) return;
    if (this.gathered !== undefined) {
      this.gathered.push({ event, k });
      return;
    }
    // The burst is placed before the write this event may start (both at the end of the turn), so
    // events emitted together — a span's two starts — are journaled together.
    this.gathered = [];
    this.options.defer(() => this.placeBurst());
    this.place([{ event, k }]);
  }

  /**
   * The records released after `after` (all of them without it) and whether more will come: if so,
   * `reader` now receives every later release, in order, with nothing lost or repeated in between.
   */
  join(reader: LogReader, after?: Position): { records: LogRecord[]; more: boolean } {
    const index =
      after === undefined
        ? 0
        : this.released.findIndex((record) => record.position.epoch > after.epoch || (record.position.epoch === after.epoch && record.position.seq > after.seq));
    const records = index < 0 ? [] : this.released.slice(index);
    if (this.finished) return { records, more: false };
    this.readers.add(reader);
    this.onReaders?.(this.readers.size);
    return { records, more: true };
  }

  leave(reader: LogReader): void {
    if (this.readers.delete(reader)) this.onReaders?.(this.readers.size);
  }

  get readerCount(): number {
    return this.readers.size;
  }

  /** The epoch's start, as its first batch says it. */
  get start(): EpochStart {
    return this.options.start;
  }

  /** Writes what is placed so far now (a run handing over to another instance). */
  async flush(): Promise<void> {
    this.placeBurst();
    await this.write(true);
  }

  /** Writes the epoch's start now (a takeover's fork point must be durable before anything it says). */
  async open(): Promise<void> {
    await this.write(true);
  }

  /** Places what is gathered, writes everything, releases everything and ends every reader. */
  close(): Promise<void> {
    if (this.ended) return this.ended;
    this.placeBurst();
    this.closed = true;
    clearTimeout(this.flushTimer);
    this.ended = (async () => {
      while (!this.fenced && (this.unwritten.length > 0 || !this.startWritten || this.writing)) await this.write(true);
      if (this.fenced) return;
      this.releaseReady();
      this.finished = true;
      for (const reader of this.readers) reader.end();
      this.readers.clear();
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
    this.broken = true;
    this.finished = true;
    clearTimeout(this.flushTimer);
    this.gathered = undefined;
    this.outbox.length = 0;
    this.unwritten = [];
    this.barriers.length = 0;
    this.ended ??= Promise.resolve();
    this.options.logger.info('event log fenced: another producer continues the run', { epoch: this.options.epoch, lastSeq: this.lastPosition?.seq });
    const readers = [...this.readers];
    this.readers.clear();
    for (const reader of readers) reader.end(true);
  }

  private placeBurst(): void {
    const burst = this.gathered;
    this.gathered = undefined;
    if (burst === undefined || burst.length === 0) return;
    const merged: Placed[] = [];
    for (const item of burst) {
      const previous = merged.at(-1);
      if (previous !== undefined && mergeable(previous.event, item.event)) {
        // A new object: the emitted event is never changed; the first part's timestamp is kept.
        const delta = `${deltaOf(previous.event)}${deltaOf(item.event)}`;
        merged[merged.length - 1] = { event: { ...previous.event, delta } as AguiEvent, k: item.k };
      } else merged.push(item);
    }
    this.place(merged);
  }

  private place(items: readonly Placed[]): void {
    let mustWrite = false;
    for (const { event, k } of items) {
      this.seq += 1;
      const record = recordOf(this.tag, { epoch: this.options.epoch, seq: this.seq, k }, event);
      this.outbox.push(record);
      if (!this.broken) {
        this.unwritten.push({ seq: this.seq, k, event });
        this.unwrittenBytes += record.sse.length;
        if (mustBeJournaledFirst(event)) {
          this.barriers.push(this.seq);
          mustWrite = true;
        }
      }
    }
    if (mustWrite || (!this.startWritten && this.options.start.kind === 'takeover')) this.writeSoon();
    else this.scheduleFlush();
    this.releaseReady();
  }

  /**
   * A write that must land, started once the current turn of the event loop is done: what else the
   * turn places (a run's closing events and its terminal one, emitted together) goes in the same
   * write (docs/design/reattach.md "Cost").
   */
  private writeSoon(): void {
    if (this.writeDue) return;
    this.writeDue = true;
    this.options.defer(() => {
      this.writeDue = false;
      void this.write(true);
    });
  }

  private scheduleFlush(): void {
    if (this.flushTimer !== undefined || this.broken || this.unwritten.length === 0) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.write(false);
    }, this.options.flushMs);
  }

  /** One journal write at a time, each of everything unwritten when it starts. */
  private async write(urgent: boolean): Promise<void> {
    if (this.writing) {
      await this.writing;
      if (urgent && (this.unwritten.length > 0 || !this.startWritten)) return this.write(true);
      return;
    }
    if (this.broken || (this.unwritten.length === 0 && this.startWritten)) return;
    const entries = this.unwritten;
    const size = this.unwrittenBytes;
    this.unwritten = [];
    this.unwrittenBytes = 0;
    const batch: JournalBatch = { executionId: this.options.executionId, epoch: this.options.epoch, entries, writtenAt: (this.options.clock ?? Date.now)() };
    if (!this.startWritten) batch.start = this.options.start;
    this.writing = this.append(batch, size);
    try {
      await this.writing;
    } finally {
      this.writing = undefined;
    }
    this.releaseReady();
    if (this.unwritten.length > 0) {
      if (this.barriers.some((seq) => seq > this.durableSeq)) await this.write(true);
      else this.scheduleFlush();
    }
  }

  private async append(batch: JournalBatch, size: number): Promise<void> {
    if (this.bytes + size > this.options.maxBytes) {
      await this.appendUpToCap(batch);
      return;
    }
    try {
      await this.options.journal?.append(this.options.threadId, batch);
      this.bytes += size;
      this.startWritten = true;
      this.durableSeq = batch.entries.at(-1)?.seq ?? this.durableSeq;
    } catch (error) {
      // Batches are written once: a batch already under this name is another producer's fence.
      if (error instanceof StoreError && error.kind === 'conflict') this.fence();
      else this.stopJournaling('the event journal could not be written', error);
    }
  }

  /**
   * The cap counts events: what fits is written, then a marker that the epoch is full from the next
   * seq on (docs/design/reattach.md "Cap") — a reader who needs what follows gets EVENT_ID_EXPIRED,
   * never a silent gap. The stream itself goes on.
   */
  private async appendUpToCap(batch: JournalBatch): Promise<void> {
    const fit: JournalEntry[] = [];
    let bytes = this.bytes;
    for (const entry of batch.entries) {
      const size = JSON.stringify(entry.event).length + RECORD_OVERHEAD;
      if (bytes + size > this.options.maxBytes) break;
      fit.push(entry);
      bytes += size;
    }
    const nextSeq = (fit.at(-1)?.seq ?? (batch.entries[0]?.seq ?? this.seq + 1) - 1) + 1;
    try {
      if (fit.length > 0 || batch.start) await this.options.journal?.append(this.options.threadId, { ...batch, entries: fit });
      await this.options.journal?.append(this.options.threadId, {
        executionId: batch.executionId,
        epoch: batch.epoch,
        entries: [],
        fenceSeq: nextSeq,
        full: true,
        writtenAt: batch.writtenAt,
      });
      this.bytes = bytes;
      this.startWritten = true;
      this.durableSeq = fit.at(-1)?.seq ?? this.durableSeq;
    } catch (error) {
      if (error instanceof StoreError && error.kind === 'conflict') {
        this.fence();
        return;
      }
    }
    this.stopJournaling('the journal of this run is full', undefined);
  }

  /** The stream goes on without the journal; readers after this point get a clear error (canonical.ts). */
  private stopJournaling(reason: string, error: unknown): void {
    if (!this.broken)
      this.options.logger.warn(`${reason}; this run can no longer be resumed past here`, {
        epoch: this.options.epoch,
        error: error === undefined ? undefined : errorFields(error),
      });
    this.broken = true;
    this.startWritten = true;
    this.unwritten = [];
    this.unwrittenBytes = 0;
    this.barriers.length = 0;
  }

  /** Releases every placed record not held back by a write that must land first. */
  private releaseReady(): void {
    // A takeover's fork point is durable before the epoch says anything (takeover.ts); a run's start
    // goes with its first write that must land.
    if (this.fenced || (!this.startWritten && !this.broken && this.options.start.kind === 'takeover')) return;
    while (this.barriers.length > 0 && (this.barriers[0] as number) <= this.durableSeq) this.barriers.shift();
    const holdFrom = this.barriers[0] ?? Number.POSITIVE_INFINITY;
    let count = 0;
    while (count < this.outbox.length && (this.outbox[count] as LogRecord).position.seq < holdFrom) count += 1;
    if (count === 0) return;
    const records = this.outbox.splice(0, count);
    for (const record of records) this.released.push(record);
    for (const reader of this.readers) reader.push(records);
  }
}

/** An event at its position, with its SSE record encoded once for every reader (docs/protocol.md §4.1). */
/** About what an entry adds to a batch besides its event (seq, k, punctuation). */
const RECORD_OVERHEAD = 40;

export function recordOf(tag: string, at: Position, event: AguiEvent): LogRecord {
  const position = { epoch: at.epoch, seq: at.seq, k: at.k };
  const id = eventId(tag, position);
  return { position, id, event, sse: `id: ${id}\ndata: ${JSON.stringify(event)}\n\n` };
}

function deltaOf(event: AguiEvent): string {
  return (event as unknown as Record<string, string>)['delta'] ?? '';
}

function mergeable(previous: AguiEvent, next: AguiEvent): boolean {
  const field = DELTA_OWNERS[next.type];
  if (field === undefined || previous.type !== next.type) return false;
  const a = previous as unknown as Record<string, unknown>;
  const b = next as unknown as Record<string, unknown>;
  return typeof a[field] === 'string' && a[field] === b[field] && typeof a['delta'] === 'string' && typeof b['delta'] === 'string';
}
