/**
 * The producer's event log (lib/core/journal/event-log.ts; docs/protocol.md §4.1, §4.12, §6.15):
 * bursts and merged deltas, positions and SSE ids, what is journaled when, what waits for the
 * journal, a journal that fails, and readers that join later.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JournalBatch } from '../../lib/core/journal/batch.js';
import { canonicalOrder, continuationAfter } from '../../lib/core/journal/canonical.js';
import { MAX_UNJOURNALED } from '../../lib/core/journal/durability.js';
import { EventLog, type LogRecord } from '../../lib/core/journal/event-log.js';
import { executionTag } from '../../lib/core/journal/position.js';
import type { EventJournal } from '../../lib/core/ports.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';
import { MemoryEventJournal } from '../support/memory-journal.js';

const EXECUTION = '0b5c8e8e-3d1a-4f5e-9c43-1d3f0f3b9a11';
const text = (delta: string, timestamp = 1): AguiEvent => ({ type: 'TEXT_MESSAGE_CONTENT', timestamp, messageId: 'm', delta });
const tool = (id: string): AguiEvent => ({ type: 'TOOL_CALL_START', timestamp: 1, toolCallId: id, toolCallName: id });
const runStarted: AguiEvent = { type: 'RUN_STARTED', timestamp: 1, threadId: 't', runId: 'r' };

/** A journal whose writes land when the test says. */
class GatedJournal extends MemoryEventJournal {
  readonly written: JournalBatch[] = [];
  private gates: Array<() => void> = [];
  held = false;
  failing = false;
  /** Writes still to fail before the journal answers again. */
  failures = 0;

  override async append(threadId: string, batch: JournalBatch): Promise<void> {
    if (this.held) await new Promise<void>((resolve) => this.gates.push(resolve));
    if (this.failing) throw new Error('the store is down');
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('the write failed');
    }
    await super.append(threadId, batch);
    this.written.push(batch);
  }

  land(): void {
    this.held = false;
    for (const gate of this.gates.splice(0)) gate();
  }
}

function logWith(journal: EventJournal | undefined, warnings: unknown[] = [], maxBytes = 1_000_000) {
  const deferred: Array<() => void> = [];
  const releases: LogRecord[][] = [];
  const log = new EventLog({
    journal,
    threadId: 'thread',
    executionId: EXECUTION,
    epoch: 2,
    start: { kind: 'run', runId: 'r' },
    defer: (task) => deferred.push(task),
    flushMs: 1_000,
    maxBytes,
    logger: { debug: () => undefined, info: () => undefined, warn: (message: string) => warnings.push(message), error: () => undefined, child: () => undefined as never },
  });
  let ended = false;
  let fenced = false;
  log.join({
    push: (records) => releases.push([...records]),
    end: (byFence) => {
      ended = true;
      fenced = byFence === true;
    },
  });
  return {
    log,
    releases,
    /** The turn of the event loop ends: the gathered burst is placed. */
    endTurn: () => {
      for (const task of deferred.splice(0)) task();
    },
    ended: () => ended,
    fenced: () => fenced,
  };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

describe('bursts and positions', () => {
  it('places an event after a quiet moment at once and the rest of its turn together, deltas of one message merged', async () => {
    const { log, releases, endTurn } = logWith(undefined);
    log.emit(text('Fast ', 100), 1);
    log.emit(text('answer ', 101), 2);
    log.emit(text('for you.', 102), 3);
    log.emit(tool('t1'), 3);
    expect(releases.map((batch) => batch.map((record) => record.event))).toEqual([[text('Fast ', 100)]]);
    endTurn();
    expect(releases[1]?.map((record) => record.event)).toEqual([text('answer for you.', 101), tool('t1')]);
    // The merged delta takes the position of its last part; seqs count placed events.
    expect(releases.flat().map((record) => record.position)).toEqual([
      { epoch: 2, seq: 1, k: 1 },
      { epoch: 2, seq: 2, k: 3 },
      { epoch: 2, seq: 3, k: 3 },
    ]);
    const tag = executionTag(EXECUTION);
    expect(releases.flat().map((record) => record.id)).toEqual([`${tag}.2.1.1`, `${tag}.2.2.3`, `${tag}.2.3.3`]);
    expect(releases[0]?.[0]?.sse).toBe(`id: ${tag}.2.1.1\ndata: ${JSON.stringify(text('Fast ', 100))}\n\n`);
    await log.close();
  });

  it('keeps deltas of other messages, tool calls and kinds apart, in order', () => {
    const { log, releases, endTurn } = logWith(undefined);
    log.emit(runStarted, 0);
    const burst: AguiEvent[] = [
      text('a'),
      text('b'),
      { type: 'TEXT_MESSAGE_CONTENT', timestamp: 1, messageId: 'n', delta: 'c' },
      { type: 'REASONING_MESSAGE_CONTENT', timestamp: 1, messageId: 'n', delta: 'd' },
      { type: 'REASONING_MESSAGE_CONTENT', timestamp: 1, messageId: 'n', delta: 'e' },
      { type: 'TEXT_MESSAGE_END', timestamp: 1, messageId: 'm' },
      text('f'),
      { type: 'TOOL_CALL_ARGS', timestamp: 1, toolCallId: 't1', delta: '{"a":' },
      { type: 'TOOL_CALL_ARGS', timestamp: 1, toolCallId: 't1', delta: '1}' },
      { type: 'TOOL_CALL_ARGS', timestamp: 1, toolCallId: 't2', delta: '{}' },
    ];
    for (const event of burst) log.emit(event, 0);
    endTurn();
    const placed = releases[1]?.map((record) => record.event as unknown as Record<string, unknown>) ?? [];
    expect(placed.map((event) => [event['type'], event['messageId'] ?? event['toolCallId'], event['delta']])).toEqual([
      ['TEXT_MESSAGE_CONTENT', 'm', 'ab'],
      ['TEXT_MESSAGE_CONTENT', 'n', 'c'],
      ['REASONING_MESSAGE_CONTENT', 'n', 'de'],
      ['TEXT_MESSAGE_END', 'm', undefined],
      ['TEXT_MESSAGE_CONTENT', 'm', 'f'],
      ['TOOL_CALL_ARGS', 't1', '{"a":1}'],
      ['TOOL_CALL_ARGS', 't2', '{}'],
    ]);
    expect(burst.map((event) => (event as unknown as { delta?: string }).delta)).toEqual(['a', 'b', 'c', 'd', 'e', undefined, 'f', '{"a":', '1}', '{}']);
  });
});

describe('what is journaled when (docs/protocol.md §6.15)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends a run’s RUN_STARTED at once and journals it with the epoch’s start in the first write that must land', async () => {
    const journal = new GatedJournal();
    journal.held = true;
    const { log, releases, endTurn } = logWith(journal);
    log.emit(runStarted, 0);
    await settle();
    expect(releases.flat().map((record) => record.event.type)).toEqual(['RUN_STARTED']);
    expect(journal.written).toEqual([]);
    log.emit(tool('t1'), 0);
    // The burst is placed at the end of its turn; the write it must wait for starts at the end of the next.
    endTurn();
    endTurn();
    await settle();
    expect(releases.flat()).toHaveLength(1);
    journal.land();
    await settle();
    expect(releases.flat().map((record) => record.event.type)).toEqual(['RUN_STARTED', 'TOOL_CALL_START']);
    expect(journal.written).toHaveLength(1);
    expect(journal.written[0]).toMatchObject({ executionId: EXECUTION, epoch: 2, start: { kind: 'run', runId: 'r' }, entries: [{ seq: 1, k: 0, event: runStarted }, { seq: 2 }] });
  });

  it('sends text at once and journals it within a second, in one batch', async () => {
    const journal = new GatedJournal();
    const { log, releases, endTurn } = logWith(journal);
    log.emit(runStarted, 0);
    await settle();
    for (const [index, delta] of ['a', 'b', 'c'].entries()) {
      log.emit(text(delta), index + 1);
      endTurn();
      await settle();
    }
    expect(releases.flat().map((record) => record.event.type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT']);
    expect(journal.written).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(999);
    expect(journal.written).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(journal.written[0]?.entries.map((entry) => [entry.seq, entry.k])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 3],
    ]);
    expect(journal.written[0]?.start).toEqual({ kind: 'run', runId: 'r' });
  });

  it('holds an event that opens a span, and everything after it, until a write holding it has landed', async () => {
    const journal = new GatedJournal();
    const { log, releases, endTurn } = logWith(journal);
    log.emit(runStarted, 0);
    await settle();
    log.emit(text('before'), 1);
    endTurn();
    journal.held = true;
    log.emit(tool('t1'), 1);
    endTurn();
    await settle();
    log.emit(text('after'), 2);
    endTurn();
    await settle();
    expect(releases.flat().map((record) => record.event.type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_CONTENT']);
    journal.land();
    await settle();
    expect(releases.flat().map((record) => record.event.type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_CONTENT', 'TOOL_CALL_START', 'TEXT_MESSAGE_CONTENT']);
    // The run's start and the text before the tool went into the tool's write; the text after waits for the next flush.
    expect(journal.written[0]?.entries.map((entry) => entry.event.type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_CONTENT', 'TOOL_CALL_START']);
  });

  it('goes on without a journal that fails, and says so once', async () => {
    const journal = new GatedJournal();
    journal.failing = true;
    const warnings: unknown[] = [];
    const { log, releases, endTurn, ended } = logWith(journal, warnings);
    log.emit(runStarted, 0);
    await settle();
    log.emit(tool('t1'), 0);
    endTurn();
    log.emit(text('x'), 1);
    await log.close();
    expect(releases.flat().map((record) => record.event.type)).toEqual(['RUN_STARTED', 'TOOL_CALL_START', 'TEXT_MESSAGE_CONTENT']);
    expect(warnings).toHaveLength(1);
    expect(ended()).toBe(true);
  });

  it('writes everything and ends its readers when closed', async () => {
    const journal = new GatedJournal();
    const { log, endTurn, ended } = logWith(journal);
    log.emit(runStarted, 0);
    log.emit(text('a'), 1);
    endTurn();
    log.emit(text('b'), 2);
    await log.close();
    expect(journal.written.flatMap((batch) => batch.entries.map((entry) => entry.seq))).toEqual([1, 2, 3]);
    expect(ended()).toBe(true);
  });
});

describe('the cap and the fence (docs/design/reattach.md)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  it('counts events against the cap: writes what fits of a burst, then marks the epoch full — readers past it get EVENT_ID_EXPIRED', async () => {
    const journal = new GatedJournal();
    const { log, releases, endTurn } = logWith(journal, [], 400);
    log.emit(runStarted, 0);
    await settle();
    // One burst far over the cap, of small events: the first of them still fit.
    for (let i = 1; i <= 20; i += 1) log.emit(tool(`t${i}`), 0);
    endTurn();
    await log.close();
    expect(releases.flat()).toHaveLength(21);
    const written = journal.written.flatMap((batch) => batch.entries.map((entry) => entry.seq));
    expect(written.length).toBeGreaterThan(2);
    expect(written.length).toBeLessThan(21);
    const marker = journal.written.at(-1);
    expect(marker).toMatchObject({ entries: [], full: true, fenceSeq: (written.at(-1) ?? 0) + 1 });
    const order = canonicalOrder(await journal.read('thread', EXECUTION));
    expect(order.epochs.get(2)?.full).toBe(true);
    expect(continuationAfter(order, { epoch: 2, seq: 21, k: 0 })).toEqual({ kind: 'expired' });
    expect(continuationAfter(order, { epoch: 2, seq: 1, k: 0 }).kind).toBe('entries');
  });

  it('marks a journal whose write failed full from that write on, with the epoch’s start: a reader past it gets EVENT_ID_EXPIRED, not a repeat', async () => {
    const journal = new GatedJournal();
    journal.failures = 1;
    const warnings: unknown[] = [];
    const { log, releases, endTurn } = logWith(journal, warnings);
    log.emit(runStarted, 0);
    log.emit(tool('t1'), 0);
    endTurn();
    await settle();
    // The stream goes on past the failure, span events too: they are in no journal.
    log.emit(tool('t2'), 0);
    endTurn();
    await log.close();
    expect(releases.flat().map((record) => record.position.seq)).toEqual([1, 2, 3]);
    expect(warnings).toEqual([expect.stringContaining('could not be written')]);
    expect(journal.written).toEqual([expect.objectContaining({ entries: [], full: true, fenceSeq: 1, start: { kind: 'run', runId: 'r' } })]);
    const order = canonicalOrder(await journal.read('thread', EXECUTION));
    expect(order.epochs.get(2)).toMatchObject({ start: { kind: 'run' }, lastSeq: 0, full: true });
    expect(continuationAfter(order, { epoch: 2, seq: 2, k: 0 })).toEqual({ kind: 'expired' });
  });

  it('releases content at most MAX_UNJOURNALED records past what its journal holds: the next waits for a write', async () => {
    const journal = new GatedJournal();
    const { log, releases, endTurn } = logWith(journal);
    log.emit(runStarted, 0);
    log.emit(tool('t1'), 0);
    endTurn();
    endTurn();
    await settle();
    expect(releases.flat()).toHaveLength(2);
    journal.held = true;
    // Deltas of two messages in turn: nothing merges them, each is a record of its own.
    for (let i = 0; i < MAX_UNJOURNALED + 10; i += 1) {
      log.emit({ type: 'TEXT_MESSAGE_CONTENT', timestamp: 1, messageId: i % 2 === 0 ? 'a' : 'b', delta: 'x' }, i + 1);
      endTurn();
    }
    endTurn();
    await settle();
    const released = releases.flat().map((record) => record.position.seq);
    expect(released.at(-1)).toBe(2 + MAX_UNJOURNALED - 1);
    journal.land();
    await settle();
    endTurn();
    await settle();
    await log.close();
    expect(releases.flat()).toHaveLength(2 + MAX_UNJOURNALED + 10);
  });

  it('stops at another producer’s fence: nothing more written or released, its readers ended as fenced', async () => {
    const journal = new GatedJournal();
    const { log, releases, endTurn, fenced } = logWith(journal);
    log.emit(runStarted, 0);
    await settle();
    // A takeover fences epoch 2 before anything of it was journaled.
    await journal.append('thread', { executionId: EXECUTION, epoch: 2, entries: [], fenceSeq: 1 });
    log.emit(tool('t1'), 0);
    endTurn();
    await settle();
    log.emit(tool('t2'), 0);
    await log.close();
    expect(releases.flat().map((record) => record.event.type)).toEqual(['RUN_STARTED']);
    expect(journal.written.flatMap((batch) => batch.entries.map((entry) => entry.event.type))).toEqual([]);
    expect(fenced()).toBe(true);
    expect(log.fenced).toBe(true);
  });
});

describe('readers that join later', () => {
  it('get what was released after their position, then every later release, nothing twice', async () => {
    const { log, endTurn } = logWith(new MemoryEventJournal());
    log.emit(runStarted, 0);
    await new Promise((resolve) => setImmediate(resolve));
    log.emit(text('a'), 1);
    endTurn();
    log.emit(text('b'), 2);
    endTurn();
    await new Promise((resolve) => setImmediate(resolve));
    const later: LogRecord[] = [];
    const joined = log.join({ push: (records) => later.push(...records), end: () => undefined }, { epoch: 2, seq: 2, k: 1 });
    expect(joined.more).toBe(true);
    expect(joined.records.map((record) => record.position.seq)).toEqual([3]);
    log.emit(text('c'), 3);
    await log.close();
    expect(later.map((record) => record.position.seq)).toEqual([4]);
    const afterClose = log.join({ push: () => undefined, end: () => undefined });
    expect(afterClose).toMatchObject({ more: false });
    expect(afterClose.records.map((record) => record.position.seq)).toEqual([1, 2, 3, 4]);
  });
});
