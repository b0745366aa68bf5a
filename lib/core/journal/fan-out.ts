/**
 * The event log's fan-out (docs/design/reattach.md "Cost"; event-log.ts): released records go to
 * every reader on this instance as the same pre-encoded records, and a bounded tail of them is kept
 * for readers that join later. A record leaves the tail only once the journal holds it and the tail
 * is past its bounds, so a reader that joins after it was let go catches up from the journal
 * (follow-execution.ts) and takes the rest here — the log itself never grows with the run.
 */
import type { AguiEvent } from '../translate/events.js';
import type { Position } from './position.js';

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

/** What a reader that joins gets. */
export interface Joined {
  /** The kept records after the position it joined at. */
  records: LogRecord[];
  /** Whether more will come (the reader now receives every later release). */
  more: boolean;
}

/** The tail kept for readers that join later: at most this many records... */
export const TAIL_RECORDS = 256;
/** ...and about this many bytes of them (SSE records), beyond what the journal does not hold yet. */
export const TAIL_BYTES = 256 * 1024;

export class FanOut {
  private readonly readers = new Set<LogReader>();
  /** The records released and kept, oldest first, and about how many bytes they make. */
  private readonly kept: LogRecord[] = [];
  private keptBytes = 0;
  /** The last seq let go from the tail (0: none): a reader before it catches up from the journal. */
  droppedThrough = 0;
  /** Every reader has been ended: a reader that joins now is ended at once. */
  finished = false;
  /** Told how many readers there are after each join and leave (the run's presence, docs/protocol.md §6.15). */
  onReaders: ((count: number) => void) | undefined;

  /** The position of the last record released. */
  get lastPosition(): Position | undefined {
    return this.kept.at(-1)?.position;
  }

  get readerCount(): number {
    return this.readers.size;
  }

  /** Gives records to every reader and keeps them; then lets the tail go down to its bounds where the journal holds it through `durableSeq`. */
  release(records: readonly LogRecord[], durableSeq: number): void {
    for (const record of records) {
      this.kept.push(record);
      this.keptBytes += record.sse.length;
    }
    for (const reader of this.readers) reader.push(records);
    this.trim(durableSeq);
  }

  /** Lets go of the oldest records past the tail's bounds that the journal holds (seq ≤ durableSeq); one always stays. */
  trim(durableSeq: number): void {
    while (this.kept.length > 1 && (this.kept.length > TAIL_RECORDS || this.keptBytes > TAIL_BYTES)) {
      const oldest = this.kept[0] as LogRecord;
      if (oldest.position.seq > durableSeq) return;
      this.kept.shift();
      this.keptBytes -= oldest.sse.length;
      this.droppedThrough = oldest.position.seq;
    }
  }

  /**
   * The kept records after `after` (all of them without it) and whether more will come: if so,
   * `reader` now receives every later release, in order, with nothing lost or repeated in between.
   * A reader before `droppedThrough` reads that part from the journal first.
   */
  join(reader: LogReader, after?: Position): Joined {
    const index =
      after === undefined ? 0 : this.kept.findIndex((record) => record.position.epoch > after.epoch || (record.position.epoch === after.epoch && record.position.seq > after.seq));
    const records = index < 0 ? [] : this.kept.slice(index);
    if (this.finished) return { records, more: false };
    this.readers.add(reader);
    this.onReaders?.(this.readers.size);
    return { records, more: true };
  }

  leave(reader: LogReader): void {
    if (this.readers.delete(reader)) this.onReaders?.(this.readers.size);
  }

  /** Ends every reader (`fenced`: another producer continues the run); none joins any more. */
  end(fenced: boolean): void {
    this.finished = true;
    const readers = [...this.readers];
    this.readers.clear();
    for (const reader of readers) reader.end(fenced || undefined);
  }
}
