/**
 * A run's log keeps a bounded tail (lib/core/journal/fan-out.ts; docs/design/reattach.md "Cost"):
 * past its bounds it lets go of what the journal holds, and a reader that joins it later on the
 * same instance (follow-execution.ts) catches up from the journal, then takes the rest from the
 * log — the whole run once, in order. What the log let go that the journal never got (its writes
 * failed) is the clear error, never a gap.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { JournalBatch } from '../../lib/core/journal/batch.js';
import { EventLog, type LogRecord } from '../../lib/core/journal/event-log.js';
import { TAIL_RECORDS } from '../../lib/core/journal/fan-out.js';
import { followExecution } from '../../lib/core/reattach/follow-execution.js';
import type { ThreadDocument } from '../../lib/core/thread/document.js';
import { followDeps } from '../support/follow-deps.js';
import { MemoryEventJournal } from '../support/memory-journal.js';

const EXECUTION = '6f1c2a4e-8b3d-4e5f-9a1b-2c3d4e5f6a7b';
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet };
const DELTAS = 3 * TAIL_RECORDS;

class FailingJournal extends MemoryEventJournal {
  failing = false;
  /** Writes still to fail before the journal answers again. */
  failures = 0;
  override async append(threadId: string, batch: JournalBatch): Promise<void> {
    if (this.failing) throw new Error('the store is down');
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('the write failed');
    }
    await super.append(threadId, batch);
  }
}

function openLog(journal: MemoryEventJournal): EventLog {
  return new EventLog({
    journal,
    threadId: 'thread',
    executionId: EXECUTION,
    epoch: 1,
    start: { kind: 'run', runId: 'r' },
    defer: setImmediate,
    flushMs: 5,
    maxBytes: 64 * 1024 * 1024,
    logger: quiet,
  });
}

/** The run's events up to its last delta, each in a turn of its own (so none is merged). */
async function streamDeltas(log: EventLog): Promise<void> {
  log.emit({ type: 'RUN_STARTED', timestamp: 1, threadId: 'thread', runId: 'r' }, 0);
  log.emit({ type: 'TEXT_MESSAGE_START', timestamp: 1, messageId: 'm', role: 'assistant' }, 0);
  for (let index = 0; index < DELTAS; index += 1) {
    await nextTurn();
    log.emit({ type: 'TEXT_MESSAGE_CONTENT', timestamp: 1, messageId: 'm', delta: `${index} ` }, index + 1);
  }
  await nextTurn();
}

function endRun(log: EventLog): void {
  log.emit({ type: 'TEXT_MESSAGE_END', timestamp: 1, messageId: 'm' }, DELTAS);
  log.emit({ type: 'RUN_FINISHED', timestamp: 1, threadId: 'thread', runId: 'r' }, DELTAS);
}

/** A reader from the run's start: on the log's instance while the run goes on, unless told otherwise. */
function follower(journal: MemoryEventJournal, log: EventLog | undefined, options: { document?: ThreadDocument; batches?: JournalBatch[] } = {}) {
  const document = options.document ?? ({ threadId: 'thread', execution: { executionId: EXECUTION, journalEpoch: 1 }, activeRun: { runId: 'r' } } as unknown as ThreadDocument);
  const got: LogRecord[] = [];
  const done = followExecution(
    followDeps(journal, log, document),
    { threadId: 'thread', executionId: EXECUTION, position: undefined, batches: options.batches ?? [] },
    (records) => got.push(...records),
    new AbortController().signal,
  );
  return { got, done };
}

const textOf = (records: readonly LogRecord[]): string => records.map((record) => (record.event.type === 'TEXT_MESSAGE_CONTENT' ? record.event.delta : '')).join('');
const whole = Array.from({ length: DELTAS }, (_, index) => `${index} `).join('');

describe('the bounded tail of a run’s log', () => {
  it('lets go of what the journal holds, and a reader that joins later gets the whole run once, in order', async () => {
    const journal = new MemoryEventJournal();
    const log = openLog(journal);
    await streamDeltas(log);
    await log.flush();
    // Past its bounds, the log kept a tail: the first records are only in the journal now.
    expect(log.droppedThrough).toBeGreaterThan(DELTAS - TAIL_RECORDS);
    expect(log.join({ push: () => undefined, end: () => undefined }).records.length).toBeLessThanOrEqual(TAIL_RECORDS);
    const reader = follower(journal, log);
    endRun(log);
    await log.close();
    await reader.done;
    expect(reader.got.map((record) => record.event.type)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      ...Array(DELTAS).fill('TEXT_MESSAGE_CONTENT'),
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(reader.got.map((record) => record.position.seq)).toEqual(Array.from({ length: DELTAS + 4 }, (_, index) => index + 1));
    expect(textOf(reader.got)).toBe(whole);
  });

  it('gives a reader the clear error when what it let go was never journaled', async () => {
    const journal = new FailingJournal();
    journal.failing = true;
    const log = openLog(journal);
    await streamDeltas(log);
    await log.flush();
    // Nothing more is journaled: the log keeps its tail only.
    expect(log.droppedThrough).toBeGreaterThan(0);
    const reader = follower(journal, log);
    await reader.done;
    expect(reader.got.map((record) => record.event)).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: 'EVENT_ID_EXPIRED' })]);
    await log.close();
  });

  it('tells a reader from the run’s start on another instance, once the run ended, that its journal holds none of it', async () => {
    // The run's first write failed: the journal holds the marker only (journal-writer.ts); the run streamed on elsewhere and ended.
    const journal = new FailingJournal();
    journal.failures = 1;
    const log = openLog(journal);
    await streamDeltas(log);
    endRun(log);
    await log.close();
    expect(await journal.read('thread', EXECUTION)).toEqual([expect.objectContaining({ entries: [], full: true, fenceSeq: 1 })]);
    const ended = { threadId: 'thread', execution: { executionId: EXECUTION, journalEpoch: 1 }, activeRun: null } as unknown as ThreadDocument;
    // As the route admits it: with the batches its admission read (admit-reattach.ts).
    const reader = follower(journal, undefined, { document: ended, batches: await journal.read('thread', EXECUTION) });
    await reader.done;
    expect(reader.got.map((record) => record.event)).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: 'EVENT_ID_EXPIRED' })]);
  });
});
