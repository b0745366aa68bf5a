/**
 * The event log's journal writer (docs/design/reattach.md "Cost", "Cap", "Fence"; event-log.ts):
 * what is placed is written in batches, one write in flight at a time, each of everything unwritten
 * when it starts — at most one write per `flushMs` for content, except that an event which must be
 * journaled first (durability.ts) starts a write at the end of its turn, and what the turn places
 * besides goes in the same write. The epoch's first batch carries its start. Past the cap, what
 * fits is written, then a marker that the epoch is full. A write refused because a batch of that
 * name exists is another producer's fence; any other failure stops the journaling (the stream goes
 * on, a reader then gets a clear error instead of a gap, docs/protocol.md §6.15).
 */
import { errorFields } from '../error-fields.js';
import { type EventJournal, type Logger, StoreError } from '../ports.js';
import type { AguiEvent } from '../translate/events.js';
import type { EpochStart, JournalBatch, JournalEntry } from './batch.js';
import { MAX_UNJOURNALED, mustBeJournaledFirst } from './durability.js';

export interface JournalWriterOptions {
  /** Undefined: nothing is journaled (a store without a journal). */
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

export interface WriterHooks {
  /** A write landed: what it made durable may be released. */
  landed: () => void;
  /** Another producer's fence refused a batch. */
  fenced: () => void;
}

/** Tries at each of the marker's two places after a failed write (markUnjournaled). */
const MARKER_ATTEMPTS = 2;

/** About what an entry adds to a batch besides its event (seq, k, punctuation). */
const RECORD_OVERHEAD = 40;

export class JournalWriter {
  /** Placed, not yet handed to the journal, and about how many bytes they make (their SSE records'). */
  private unwritten: JournalEntry[] = [];
  private unwrittenBytes = 0;
  /** Seqs that must be durable before they are released, in order. */
  private readonly barriers: number[] = [];
  /** The last seq a landed write holds. */
  durableSeq = 0;
  startWritten = false;
  /** Nothing more is written: no journal, a failed write, the cap, or a fence. */
  stopped = false;
  private writing: Promise<void> | undefined;
  private writeDue = false;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private bytes = 0;

  constructor(
    private readonly options: JournalWriterOptions,
    private readonly hooks: WriterHooks,
  ) {
    if (!options.journal) {
      this.stopped = true;
      this.startWritten = true;
    }
  }

  /** Takes one placed event to be written; true when it must be durable before it is released. */
  add(entry: JournalEntry, sseBytes: number): boolean {
    if (this.stopped) return false;
    this.unwritten.push(entry);
    this.unwrittenBytes += sseBytes;
    // Content goes out before it is journaled, but never more than MAX_UNJOURNALED records ahead (durability.ts).
    if (!mustBeJournaledFirst(entry.event as AguiEvent) && entry.seq - this.durableSeq < MAX_UNJOURNALED) return false;
    this.barriers.push(entry.seq);
    return true;
  }

  /** After events were added: a write soon when one must land (or a takeover's start is due), else a flush in time. */
  schedule(mustWrite: boolean): void {
    if (mustWrite || (!this.startWritten && this.options.start.kind === 'takeover')) this.writeSoon();
    else this.scheduleFlush();
  }

  /** The first seq still held back by a write that must land first (Infinity: none). */
  holdFrom(): number {
    while (this.barriers.length > 0 && (this.barriers[0] as number) <= this.durableSeq) this.barriers.shift();
    return this.barriers[0] ?? Number.POSITIVE_INFINITY;
  }

  /** A takeover's fork point is durable before the epoch says anything; a run's start goes with its first write that must land. */
  get holdsAll(): boolean {
    return !this.startWritten && !this.stopped && this.options.start.kind === 'takeover';
  }

  /** Whether anything is left to write or being written. */
  get pending(): boolean {
    return this.unwritten.length > 0 || !this.startWritten || this.writing !== undefined;
  }

  /** One journal write at a time, each of everything unwritten when it starts. */
  async write(urgent: boolean): Promise<void> {
    if (this.writing) {
      await this.writing;
      if (urgent && (this.unwritten.length > 0 || !this.startWritten)) return this.write(true);
      return;
    }
    if (this.stopped || (this.unwritten.length === 0 && this.startWritten)) return;
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
    this.hooks.landed();
    if (this.unwritten.length > 0) {
      if (this.barriers.some((seq) => seq > this.durableSeq)) await this.write(true);
      else this.scheduleFlush();
    }
  }

  /** Nothing more is written, and nothing waits (a fenced log). */
  stop(): void {
    this.stopped = true;
    this.cancelFlush();
    this.unwritten = [];
    this.unwrittenBytes = 0;
    this.barriers.length = 0;
  }

  cancelFlush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
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
    if (this.flushTimer !== undefined || this.stopped || this.unwritten.length === 0) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.write(false);
    }, this.options.flushMs);
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
      if (error instanceof StoreError && error.kind === 'conflict') {
        this.hooks.fenced();
        return;
      }
      this.stopJournaling('the event journal could not be written', error);
      await this.markUnjournaled(batch);
    }
  }

  /**
   * After a failed write the stream goes on, its events in no journal — span events too, which a
   * reader on a dead branch must never hold (durability.ts). The marker the cap writes says so: the
   * epoch is full from the failed batch's first seq on, so a reader past it gets EVENT_ID_EXPIRED,
   * not a continuation that repeats what it holds (docs/design/reattach.md "Cap"). A write that
   * timed out may land later under that name: the marker then goes after it. Best effort: the
   * journal may be down for good, and then a takeover's fence ends the epoch where the journal does.
   */
  private async markUnjournaled(batch: JournalBatch): Promise<void> {
    const journal = this.options.journal;
    if (!journal) return;
    const firstSeq = batch.entries[0]?.seq ?? this.durableSeq + 1;
    const afterSeq = (batch.entries.at(-1)?.seq ?? firstSeq - 1) + 1;
    const marker = (fenceSeq: number, start: boolean): JournalBatch => ({
      executionId: batch.executionId,
      epoch: batch.epoch,
      entries: [],
      fenceSeq,
      full: true,
      writtenAt: batch.writtenAt,
      ...(start && batch.start ? { start: batch.start } : {}),
    });
    for (const [fenceSeq, start] of [
      [firstSeq, true],
      [afterSeq, false],
    ] as const) {
      for (let attempt = 0; attempt < MARKER_ATTEMPTS; attempt += 1) {
        try {
          await journal.append(this.options.threadId, marker(fenceSeq, start));
          return;
        } catch (error) {
          // A batch under that name: the failed write landed after all (or a fence did): try after it.
          if (error instanceof StoreError && error.kind === 'conflict') break;
        }
      }
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
    const nextSeq = (fit.at(-1)?.seq ?? (batch.entries[0]?.seq ?? this.durableSeq + 1) - 1) + 1;
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
        this.hooks.fenced();
        return;
      }
    }
    this.stopJournaling('the journal of this run is full', undefined);
  }

  /** The stream goes on without the journal; readers after this point get a clear error (canonical.ts). */
  private stopJournaling(reason: string, error: unknown): void {
    if (!this.stopped)
      this.options.logger.warn(`${reason}; this run can no longer be resumed past here`, {
        epoch: this.options.epoch,
        error: error === undefined ? undefined : errorFields(error),
      });
    this.stopped = true;
    this.startWritten = true;
    this.unwritten = [];
    this.unwrittenBytes = 0;
    this.barriers.length = 0;
  }
}
