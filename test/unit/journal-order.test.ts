/**
 * An execution's event order from its journal (lib/core/journal/canonical.ts; docs/protocol.md
 * §6.15): epochs in order, a takeover cutting the dead branch it forked from, missing batches, and
 * what a reader at a position receives next — on the order, ahead of it, on a dead branch (less the
 * text it holds), or older than what is kept. Plus event ids (position.ts).
 */
import { describe, expect, it } from 'vitest';
import type { JournalBatch, JournalEntry } from '../../lib/core/journal/batch.js';
import { canonicalOrder, continuationAfter, withLiveEpoch } from '../../lib/core/journal/canonical.js';
import { MAX_UNJOURNALED } from '../../lib/core/journal/durability.js';
import { eventId, executionTag, parseEventId } from '../../lib/core/journal/position.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';

const X = 'execution-1';
const started = (runId: string): AguiEvent => ({ type: 'RUN_STARTED', timestamp: 1, threadId: 't', runId });
const textStart: AguiEvent = { type: 'TEXT_MESSAGE_START', timestamp: 1, messageId: 'task-message', role: 'assistant' };
const text = (delta: string): AguiEvent => ({ type: 'TEXT_MESSAGE_CONTENT', timestamp: 1, messageId: 'task-message', delta });
const toolStart = (id: string): AguiEvent => ({ type: 'TOOL_CALL_START', timestamp: 1, toolCallId: id, toolCallName: id });
const finished = (runId: string): AguiEvent => ({ type: 'RUN_FINISHED', timestamp: 1, threadId: 't', runId, outcome: { type: 'success' } });

function entries(first: number, events: Array<[AguiEvent, number]>): JournalEntry[] {
  return events.map(([event, k], index) => ({ seq: first + index, k, event }));
}

/** Run r1 (epoch 1): started, text a b, a tool; its producer died after seq 4; a takeover (epoch 2) forked at 4. */
const run: JournalBatch[] = [
  {
    executionId: X,
    epoch: 1,
    start: { kind: 'run', runId: 'r1' },
    entries: entries(1, [
      [started('r1'), 0],
      [textStart, 1],
      [text('a'), 1],
    ]),
  },
  { executionId: X, epoch: 1, entries: entries(4, [[text('b'), 2]]) },
  // Written by the dead producer after the takeover read the journal: a dead branch.
  { executionId: X, epoch: 1, entries: entries(5, [[toolStart('late'), 2]]) },
  { executionId: X, epoch: 2, start: { kind: 'takeover', runId: 'r1', fromEpoch: 1, fromSeq: 4 }, entries: [] },
  {
    executionId: X,
    epoch: 2,
    entries: entries(1, [
      [text('c'), 3],
      [text('d'), 4],
      [toolStart('t1'), 4],
      [finished('r1'), 4],
    ]),
  },
];

describe('the order of an execution', () => {
  it('places epochs in order and cuts an epoch where a takeover forked from it', () => {
    const order = canonicalOrder([...run].reverse());
    expect(order.entries.map((entry) => [entry.epoch, entry.seq])).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
      [2, 1],
      [2, 2],
      [2, 3],
      [2, 4],
    ]);
    expect(order.epochs.get(1)).toMatchObject({ lastSeq: 4, cut: true });
  });

  it('stops an epoch at a batch that never landed', () => {
    const order = canonicalOrder([run[0] as JournalBatch, { executionId: X, epoch: 1, entries: entries(9, [[text('z'), 9]]) }]);
    expect(order.entries.map((entry) => entry.seq)).toEqual([1, 2, 3]);
    expect(order.epochs.get(1)).toMatchObject({ lastSeq: 3, cut: true });
  });

  it('gives a reader on the order what follows it, and one without a position the current run from its start', () => {
    const order = canonicalOrder(run);
    const after = continuationAfter(order, { epoch: 1, seq: 2, k: 1 });
    expect(after.kind === 'entries' && after.entries.map((entry) => [entry.epoch, entry.seq])).toEqual([
      [1, 3],
      [1, 4],
      [2, 1],
      [2, 2],
      [2, 3],
      [2, 4],
    ]);
    const resumed: JournalBatch = { executionId: X, epoch: 3, start: { kind: 'run', runId: 'r2' }, entries: entries(1, [[started('r2'), 4]]) };
    const current = continuationAfter(canonicalOrder([...run, resumed]), undefined);
    expect(current.kind === 'entries' && current.entries.map((entry) => entry.event.type)).toEqual(['RUN_STARTED']);
  });

  it('continues a reader from a dead branch at the fork, less the agent text it already holds', () => {
    // The reader got seq 5 (the late tool) and text up to k 3 from the dead producer.
    const after = continuationAfter(canonicalOrder(run), { epoch: 1, seq: 6, k: 3 });
    expect(after).toMatchObject({ kind: 'entries', branch: { epoch: 1, k: 3 } });
    expect(after.kind === 'entries' && after.entries.map((entry) => [entry.event.type, (entry.event as { delta?: string }).delta])).toEqual([
      ['TEXT_MESSAGE_CONTENT', 'd'],
      ['TOOL_CALL_START', undefined],
      ['RUN_FINISHED', undefined],
    ]);
  });

  it('says when a reader is ahead of the journal, and when its position is older than what is kept', () => {
    const order = canonicalOrder(run.slice(0, 2));
    expect(continuationAfter(order, { epoch: 1, seq: 7, k: 5 })).toEqual({ kind: 'ahead' });
    expect(continuationAfter(order, { epoch: 2, seq: 1, k: 5 })).toEqual({ kind: 'ahead' });
    expect(continuationAfter(canonicalOrder(run.slice(3)), { epoch: 1, seq: 2, k: 1 })).toEqual({ kind: 'expired' });
  });

  it('takes a live epoch from its producer, cutting the branch its takeover forked from even if the journal was read before', () => {
    const journalOnly = canonicalOrder(run.slice(0, 3));
    const live = entries(1, [[text('c'), 3]]).map((entry) => ({ ...entry, epoch: 2 }));
    const view = withLiveEpoch(journalOnly, 2, live, { kind: 'takeover', runId: 'r1', fromEpoch: 1, fromSeq: 4 });
    expect(view.entries.map((entry) => [entry.epoch, entry.seq])).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
      [2, 1],
    ]);
  });
});

describe('event ids (docs/protocol.md §4.12)', () => {
  it('carry the execution, the epoch, the seq and the text cursor, and are read back only for their execution', () => {
    const tag = executionTag(X);
    const id = eventId(tag, { epoch: 2, seq: 17, k: 40 });
    expect(id).toBe(`${tag}.2.17.40`);
    expect(parseEventId(id, tag)).toEqual({ kind: 'position', position: { epoch: 2, seq: 17, k: 40 } });
    expect(parseEventId(id, executionTag('another'))).toEqual({ kind: 'otherExecution' });
    for (const bad of ['', '17', `${tag}.2.17`, `${tag}.x.1.1`, `${tag}.2.17.40.1`, `${tag.toUpperCase()}.2.17.40`]) expect(parseEventId(bad, tag)).toEqual({ kind: 'malformed' });
  });
});

describe('a reader whose producer journaled nothing before it was taken over (a run’s start goes with its first write)', () => {
  // Run r1 ended (epoch 1); run r2's producer (epoch 2) sent RUN_STARTED and text, journaled nothing, died;
  // the takeover (epoch 3) forked from r1's end and started r2 again.
  const batches: JournalBatch[] = [
    {
      executionId: X,
      epoch: 1,
      start: { kind: 'run', runId: 'r1' },
      entries: entries(1, [
        [started('r1'), 0],
        [finished('r1'), 0],
      ]),
    },
    { executionId: X, epoch: 2, entries: [], fenceSeq: 1 },
    {
      executionId: X,
      epoch: 3,
      start: { kind: 'takeover', runId: 'r2', fromEpoch: 1, fromSeq: 2 },
      entries: entries(1, [
        [started('r2'), 0],
        [textStart, 0],
        [text('Hello'), 5],
        [text(' world'), 11],
        [finished('r2'), 11],
      ]),
    },
  ];
  const order = canonicalOrder(batches);

  it('continues from the fork: the run it holds is not started again', () => {
    // All it can hold of epoch 2 is RUN_STARTED: a TEXT_MESSAGE_START waits for the journal.
    const next = continuationAfter(order, { epoch: 2, seq: 1, k: 0 });
    expect(next.kind).toBe('entries');
    const events = next.kind === 'entries' ? next.entries.map((entry) => [entry.event.type, (entry.event as { delta?: string }).delta]) : [];
    expect(events).toEqual([
      ['TEXT_MESSAGE_START', undefined],
      ['TEXT_MESSAGE_CONTENT', 'Hello'],
      ['TEXT_MESSAGE_CONTENT', ' world'],
      ['RUN_FINISHED', undefined],
    ]);
  });

  it('gives a reader without a position the run from the takeover’s start, and one from the ended run the next run whole', () => {
    const after = continuationAfter(order, { epoch: 1, seq: 2, k: 0 });
    expect(after.kind === 'entries' ? after.entries.map((entry) => entry.event.type) : []).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'RUN_FINISHED',
    ]);
  });
});

describe('a run whose own epoch journaled nothing (its first write failed), started again by a takeover', () => {
  // Epoch 1's first write failed: only the marker that nothing of it is journaled (journal-writer.ts), then the
  // takeover's epoch 2, which journaled nothing of epoch 1 to fork from and so started the run again.
  const batches: JournalBatch[] = [
    { executionId: X, epoch: 1, start: { kind: 'run', runId: 'r1' }, entries: [], fenceSeq: 1, full: true },
    { executionId: X, epoch: 2, start: { kind: 'takeover', runId: 'r1', fromEpoch: 1, fromSeq: 0 }, entries: [] },
    {
      executionId: X,
      epoch: 2,
      entries: entries(1, [
        [started('r1'), 0],
        [textStart, 0],
        [text('Hello'), 5],
        [finished('r1'), 5],
      ]),
    },
  ];

  it('gives a reader without a position the run from the takeover’s RUN_STARTED — with or without the marker', () => {
    for (const journal of [batches, batches.slice(1)]) {
      const next = continuationAfter(canonicalOrder(journal), undefined);
      expect(next.kind === 'entries' ? next.entries.map((entry) => entry.event.type) : next.kind).toEqual([
        'RUN_STARTED',
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'RUN_FINISHED',
      ]);
    }
  });

  it('refuses a reader that holds events of the failed epoch: they are in no journal', () => {
    expect(continuationAfter(canonicalOrder(batches), { epoch: 1, seq: 18, k: 3 })).toEqual({ kind: 'expired' });
  });

  it('gives nothing yet while a newer run’s epoch has journaled no start', () => {
    const next = continuationAfter(
      canonicalOrder([...batches, { executionId: X, epoch: 3, start: { kind: 'run', runId: 'r2' }, entries: [], fenceSeq: 1, full: true }]),
      undefined,
    );
    expect(next).toEqual({ kind: 'entries', entries: [] });
  });
});

describe('a position no producer handed out', () => {
  it('is refused on a dead branch when its text cursor is behind what its epoch journaled (k only grows)', () => {
    const order = canonicalOrder(run);
    // Epoch 1 journaled through seq 4 at k = 2: seq 5000 at k = 0 was never handed out.
    expect(continuationAfter(order, { epoch: 1, seq: 5000, k: 0 })).toEqual({ kind: 'expired' });
    expect(continuationAfter(order, { epoch: 1, seq: 6, k: 2 }).kind).toBe('entries');
  });

  it('is refused on a dead branch further past its epoch’s journal than a producer releases unjournaled', () => {
    const order = canonicalOrder(run);
    expect(continuationAfter(order, { epoch: 1, seq: 4 + MAX_UNJOURNALED, k: 2 }).kind).toBe('entries');
    expect(continuationAfter(order, { epoch: 1, seq: 5 + MAX_UNJOURNALED, k: 2 })).toEqual({ kind: 'expired' });
  });
});

describe('a reader on a dead branch whose run the journal never ended (file-long seed 84)', () => {
  // Run r1's producer (epoch 1) died past seq 4; the takeover (epoch 2) forked at 4, journaled one delta and
  // reached the cap — r1's end is in no journal; the next run r2 (epoch 3) started.
  const batches: JournalBatch[] = [
    ...run.slice(0, 3),
    { executionId: X, epoch: 2, start: { kind: 'takeover', runId: 'r1', fromEpoch: 1, fromSeq: 4 }, entries: [] },
    { executionId: X, epoch: 2, entries: entries(1, [[text('c'), 3]]) },
    { executionId: X, epoch: 2, entries: [], fenceSeq: 2, full: true },
    {
      executionId: X,
      epoch: 3,
      start: { kind: 'run', runId: 'r2' },
      entries: entries(1, [
        [started('r2'), 3],
        [finished('r2'), 3],
      ]),
    },
  ];

  it('keeps the next run’s RUN_STARTED: only the takeover starting the reader’s own run again is not news', () => {
    const next = continuationAfter(canonicalOrder(batches), { epoch: 1, seq: 6, k: 2 });
    expect(next.kind === 'entries' ? next.entries.map((entry) => [entry.event.type, (entry.event as { runId?: string }).runId]) : next.kind).toEqual([
      ['TEXT_MESSAGE_CONTENT', undefined],
      ['RUN_STARTED', 'r2'],
      ['RUN_FINISHED', 'r2'],
    ]);
  });
});
