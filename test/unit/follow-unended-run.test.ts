/**
 * A reader whose run the journal never ended (lib/core/reattach/follow-execution.ts; docs/design/
 * reattach.md invariant 6): the run went past its journal's cap, its end is in no journal, and the
 * next run of the execution has started. A reader of the first run — on the order or on a dead
 * branch its takeover forked — gets what the journal holds of its run and then the clear error,
 * never the next run's events as if its own had gone on (file-long seed 84).
 */
import { describe, expect, it } from 'vitest';
import type { JournalBatch, JournalEntry } from '../../lib/core/journal/batch.js';
import type { LogRecord } from '../../lib/core/journal/event-log.js';
import type { Position } from '../../lib/core/journal/position.js';
import { followExecution } from '../../lib/core/reattach/follow-execution.js';
import type { ThreadDocument } from '../../lib/core/thread/document.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';
import { followDeps } from '../support/follow-deps.js';
import { MemoryEventJournal } from '../support/memory-journal.js';

const EXECUTION = '0d9e3b1a-6c4f-4a2e-8b7d-1f2e3d4c5b6a';
const started = (runId: string): AguiEvent => ({ type: 'RUN_STARTED', timestamp: 1, threadId: 'thread', runId });
const finished = (runId: string): AguiEvent => ({ type: 'RUN_FINISHED', timestamp: 1, threadId: 'thread', runId, outcome: { type: 'success' } });
const text = (delta: string): AguiEvent => ({ type: 'TEXT_MESSAGE_CONTENT', timestamp: 1, messageId: 'm', delta });

function entries(first: number, events: Array<[AguiEvent, number]>): JournalEntry[] {
  return events.map(([event, k], index) => ({ seq: first + index, k, event }));
}

/** r1 (epoch 1) died past seq 3; its takeover (epoch 2) forked at 3, journaled one delta, reached the cap; r2 (epoch 3) ran whole. */
const journal: JournalBatch[] = [
  {
    executionId: EXECUTION,
    epoch: 1,
    start: { kind: 'run', runId: 'r1' },
    entries: entries(1, [
      [started('r1'), 0],
      [{ type: 'TEXT_MESSAGE_START', timestamp: 1, messageId: 'm', role: 'assistant' }, 0],
      [text('a'), 1],
    ]),
  },
  { executionId: EXECUTION, epoch: 2, start: { kind: 'takeover', runId: 'r1', fromEpoch: 1, fromSeq: 3 }, entries: [] },
  { executionId: EXECUTION, epoch: 2, entries: entries(1, [[text('b'), 2]]) },
  { executionId: EXECUTION, epoch: 2, entries: [], fenceSeq: 2, full: true },
  {
    executionId: EXECUTION,
    epoch: 3,
    start: { kind: 'run', runId: 'r2' },
    entries: entries(1, [
      [started('r2'), 2],
      [{ type: 'TEXT_MESSAGE_START', timestamp: 1, messageId: 'm', role: 'assistant' }, 2],
      [text('z'), 3],
      [{ type: 'TEXT_MESSAGE_END', timestamp: 1, messageId: 'm' }, 3],
      [finished('r2'), 3],
    ]),
  },
];

async function readFrom(position: Position): Promise<AguiEvent[]> {
  const store = new MemoryEventJournal();
  for (const batch of journal) await store.append('thread', batch);
  const got: LogRecord[] = [];
  // The execution is idle: both runs ended.
  const idle = { threadId: 'thread', execution: { executionId: EXECUTION, journalEpoch: 3 } } as unknown as ThreadDocument;
  await followExecution(
    followDeps(store, undefined, idle),
    { threadId: 'thread', executionId: EXECUTION, position, batches: await store.read('thread', EXECUTION) },
    (records) => got.push(...records),
    new AbortController().signal,
  );
  return got.map((record) => record.event);
}

const summary = (events: readonly AguiEvent[]): string[] =>
  events.map((event) => (event.type === 'TEXT_MESSAGE_CONTENT' ? `text ${event.delta}` : event.type === 'RUN_ERROR' ? `RUN_ERROR ${event.code}` : event.type));

describe('a reader of a run whose end is in no journal, once the next run has started', () => {
  it('on the order: what the journal holds of its run, then the clear error', async () => {
    expect(summary(await readFrom({ epoch: 1, seq: 2, k: 0 }))).toEqual(['text a', 'text b', 'RUN_ERROR EVENT_ID_EXPIRED']);
  });

  it('on the dead branch its takeover forked: the rest of its run less the text it holds, then the clear error', async () => {
    // It holds text 'a' and a tool call past seq 3 that no journal has: epoch 1, seq 5, text cursor 1.
    expect(summary(await readFrom({ epoch: 1, seq: 5, k: 1 }))).toEqual(['text b', 'RUN_ERROR EVENT_ID_EXPIRED']);
  });
});
