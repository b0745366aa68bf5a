/**
 * A reader of an execution's events from a position (docs/protocol.md §6.15): what the journal has
 * after it, then what follows live — from the producer's own log when the run streams on this
 * instance, by polling the journal when it streams elsewhere, and by taking the run over when its
 * producer is gone (detached, or its lease expired unrenewed). The reader ends once it has delivered
 * the end of the newest run and nothing of the execution is live.
 */
import { errorFields } from '../error-fields.js';
import type { EpochStart, JournalBatch } from '../journal/batch.js';
import {
  atFullEnd,
  type Branch,
  type Canonical,
  type CanonicalEntry,
  type Continuation,
  canonicalOrder,
  continuationAfter,
  lessHeldText,
  withLiveEpoch,
} from '../journal/canonical.js';
import { type EventLog, type LogRecord, recordOf } from '../journal/event-log.js';
import { batchKeyOf } from '../journal/journal-names.js';
import { comparePositions, executionTag, type Position } from '../journal/position.js';
import { ReaderSpans } from '../journal/reader-spans.js';
import type { BatchKey, EventJournal, Logger } from '../ports.js';
import { runToTakeOver } from '../thread/detach-transitions.js';
import type { ThreadDocument } from '../thread/document.js';
import type { AguiEvent } from '../translate/events.js';
import { runGraceMs } from './detach-grace.js';
import { PacedSender, type StreamFlow, UNPACED } from './paced-sender.js';

export interface FollowDeps {
  journal: EventJournal;
  /** The log of the run this instance produces for the execution, if any. */
  localLog: (executionId: string) => EventLog | undefined;
  /** The thread document as stored now (undefined: gone). */
  readThread: () => Promise<ThreadDocument | undefined>;
  /** Takes the live run over (takeover.ts); resolves with this instance's log and the order it forked from, undefined when someone else did or it ended. */
  /** Takes the run over; `known`: the batches read so far, so the takeover reads only what follows them. */
  takeOver: (known: readonly JournalBatch[]) => Promise<{ log: EventLog; order: Canonical } | undefined>;
  clock: () => number;
  /** How often the journal and the document are read again while the run streams elsewhere. */
  pollMs: number;
  /** How long a run's end may take to appear in the journal after the document says it ended. */
  endWaitMs: number;
  /**
   * Keeps a detached run from being ended while this reader follows it from another instance: its
   * deadline moved to the run's grace from now (docs/design/reattach.md "Follow").
   */
  keepAttached: (runId: string, graceMs: number) => Promise<void>;
  /** The server's maximum detach grace; a run keeps the one its caller asked for (detach-grace.ts). */
  maxGraceMs: number;
  /** The RUN_ERROR `EVENT_ID_EXPIRED` a reader gets when the journal cannot give it the rest (docs/protocol.md §6.15 "Limits"). */
  expired: () => AguiEvent;
  logger: Logger;
}

export interface FollowTarget {
  threadId: string;
  executionId: string;
  /** Undefined: the current run from its first event. */
  position: Position | undefined;
  /** The batches already read (the route reads them to answer an expired position before the stream). */
  batches: JournalBatch[];
}

const TERMINAL = new Set(['RUN_FINISHED', 'RUN_ERROR']);

/** `flow`: how far the reader is behind, so a long catch-up goes out a slice at a time (paced-sender.ts). */
export async function followExecution(
  deps: FollowDeps,
  target: FollowTarget,
  send: (records: readonly LogRecord[]) => void,
  signal: AbortSignal,
  flow: StreamFlow = UNPACED,
): Promise<void> {
  const tag = executionTag(target.executionId);
  const batches = [...target.batches];
  let lastKey: BatchKey | undefined = batches.length > 0 ? batchKeyOf(batches.at(-1) as JournalBatch) : undefined;
  let delivered = target.position;
  let fromRunStart = delivered === undefined;
  let branch: Branch | undefined;
  let endSeenAt: number | undefined;

  // Records of the producer's log on this instance keep their SSE text: encoded once, for every reader.
  const encoded = new WeakMap<CanonicalEntry, LogRecord>();
  const entryOf = (record: LogRecord): CanonicalEntry => {
    const entry = { ...record.position, event: record.event };
    encoded.set(entry, record);
    return entry;
  };
  const sender = new PacedSender<CanonicalEntry>(send, (entry) => encoded.get(entry) ?? recordOf(tag, entry, entry.event), flow, signal);

  // The reader's stream stays one valid run across a fork it read both sides of (reader-spans.ts).
  const spans = new ReaderSpans();
  // Whether the run this reader was last sent is still open to it (undefined: not known yet).
  let runOpen: boolean | undefined;
  // The reader was sent its clear error: nothing follows it.
  let stopped = false;
  /** `live`: pushed by the producer on this instance as it produces (paced-sender.ts). */
  const deliver = (entries: readonly CanonicalEntry[], live = false): void => {
    if (stopped) return;
    let fresh = lessHeldText(
      branch,
      entries.filter((entry) => delivered === undefined || comparePositions(entry, delivered) > 0),
    );
    // A run whose end never reached the journal (a write that failed) is not followed by the next run
    // as if it had ended: the reader gets the clear error instead (docs/design/reattach.md invariant 6).
    const unended = runOpen === true ? fresh.findIndex((entry) => entry.event.type === 'RUN_STARTED') : -1;
    const beforeNext = fresh.findIndex((entry) => TERMINAL.has(entry.event.type));
    const cut = unended >= 0 && (beforeNext < 0 || beforeNext > unended);
    if (cut) fresh = fresh.slice(0, unended);
    if (fresh.length > 0) {
      delivered = fresh.at(-1);
      for (const entry of fresh) {
        if (entry.event.type === 'RUN_STARTED') runOpen = true;
        else if (TERMINAL.has(entry.event.type)) runOpen = false;
      }
      const sent = fresh.filter((entry) => spans.admit(entry.event));
      if (sent.length > 0) sender.push(sent, live);
    }
    if (cut) {
      fail('the run’s end is not in its journal, and the next run has started');
      stopped = true;
    }
  };

  /** What follows the reader in `order`; the first time, also whether the run it is in is open to it. */
  const continuation = (order: Canonical): Continuation => {
    const view = continuationAfter(order, fromRunStart ? undefined : delivered);
    // A reader on a dead branch holds its run open: its end is journaled before it is sent.
    if (runOpen === undefined && !fromRunStart) runOpen = view.kind === 'entries' && view.branch !== undefined ? true : runOpenAt(order, delivered);
    fromRunStart = false;
    return view;
  };

  /** The journal cannot give this reader the rest: a clear error, never a silent end (docs/protocol.md §6.15 "Limits"). */
  const fail = (why: string): void => {
    deps.logger.warn(why);
    sender.push([{ epoch: 0, seq: 1, k: 0, event: deps.expired() }]);
  };

  try {
    await followAll();
  } finally {
    // What waits to be paced out still reaches the reader before its stream ends.
    await sender.idle();
  }

  /** Follows the execution until the reader has its newest run's end, its clear error, or left. */
  async function followAll(): Promise<void> {
    while (!signal.aborted) {
      const document = await deps.readThread();
      const local = deps.localLog(target.executionId);
      // A log here whose epoch a takeover elsewhere has passed is a producer that has not noticed yet: not joined.
      if (local && !local.fenced && document?.execution.executionId === target.executionId && (document.execution.journalEpoch ?? 0) === local.epoch) {
        // Fenced while followed: another producer continues the run — the journal has the rest.
        if (await followLocal(local, canonicalOrder(batches))) return;
        await readMore();
        continue;
      }
      const order = canonicalOrder(batches);
      const view = continuation(order);
      if (view.kind === 'expired') {
        fail('the journal no longer holds what this reader needs');
        return;
      }
      if (view.kind === 'entries') {
        branch ??= view.branch;
        deliver(view.entries);
      }
      if (stopped) return;
      if (endedHere(document, target.executionId, order)) {
        // The run ended short of the event the reader names: no producer placed it.
        if (view.kind === 'ahead') fail('the run ended before the event this reader names');
        // A reader from the run's start got nothing: its journal holds none of it (a write that failed).
        else if (delivered === undefined && order.epochs.size > 0) fail('the run ended and its journal holds none of it');
        return;
      }
      if (atFullEnd(order, delivered)) {
        fail('the run went past its journal’s cap: the rest of it is in no journal');
        return;
      }
      const live = document?.activeRun && document.execution.executionId === target.executionId;
      if (live && runToTakeOver(document, target.executionId, deps.clock())) {
        const taken = await deps.takeOver(batches).catch((error: unknown) => {
          deps.logger.warn('could not take the run over', { error: errorFields(error) });
          return undefined;
        });
        if (taken) {
          // The takeover read the journal behind its fence: that order, not a second read.
          if (await followLocal(taken.log, taken.order)) return;
          await readMore();
          continue;
        }
      }
      // A detached run followed from here is not ended under this reader (its deadline moves on).
      const until = live ? document.activeRun?.detachedUntil : undefined;
      const graceMs = runGraceMs(document?.activeRun, deps.maxGraceMs);
      if (live && until !== undefined && graceMs > 0 && until - deps.clock() < (graceMs * 2) / 3) {
        await deps
          .keepAttached(document.activeRun?.runId ?? '', graceMs)
          .catch((error: unknown) => deps.logger.warn('could not keep the detached run attached', { error: errorFields(error) }));
      }
      if (!live) {
        // The run ended: its end is journaled before it is announced, so it appears shortly.
        endSeenAt ??= deps.clock();
        if (deps.clock() - endSeenAt > deps.endWaitMs) {
          fail('the run ended but its end is not in its journal');
          return;
        }
      }
      await sleep(deps.pollMs, signal);
      await readMore();
    }
  }

  async function readMore(): Promise<void> {
    const more = await deps.journal.read(target.threadId, target.executionId, lastKey);
    batches.push(...more);
    if (more.length > 0) lastKey = batchKeyOf(more.at(-1) as JournalBatch);
  }

  /**
   * Joins the producer's log on this instance: the journal for earlier epochs, the log's own records
   * for its epoch (released, journaled or not), then every later release, until the log ends.
   * Resolves true when it did; false when it was fenced (another producer continues the run).
   */
  async function followLocal(log: EventLog, journaled: Canonical): Promise<boolean> {
    let ended = false;
    let fenced = false;
    let wake: () => void = () => undefined;
    const reader = {
      push: (records: readonly LogRecord[]) => {
        deliver(records.map(entryOf), true);
        if (stopped) wake();
      },
      end: (byFence?: boolean) => {
        ended = true;
        fenced = byFence === true;
        wake();
      },
    };
    // The log keeps a bounded tail (fan-out.ts): what it let go that this reader needs comes from the journal.
    let order = journaled;
    for (;;) {
      const through = log.droppedThrough;
      if (through === 0 || heldThrough(order, log.epoch) >= through || isPast(delivered, log.epoch, through)) break;
      await readMore();
      order = canonicalOrder(batches);
      // Read after it was let go, the journal lacks it: it was never journaled (a failed write, the cap).
      if (heldThrough(order, log.epoch) < through) {
        fail('the run’s log let go of what its journal does not hold');
        return true;
      }
    }
    const joined = log.join(reader, { epoch: log.epoch, seq: 0, k: 0 });
    try {
      const view = continuation(withLiveEpoch(order, log.epoch, joined.records.map(entryOf), log.start as EpochStart));
      if (view.kind === 'expired') {
        fail('the journal no longer holds what this reader needs');
        return true;
      }
      if (view.kind === 'entries') {
        branch ??= view.branch;
        deliver(view.entries);
      }
      if (stopped) return true;
      if (!joined.more) return !log.fenced;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        wake = done;
        signal.addEventListener('abort', done, { once: true });
        if (ended || signal.aborted) done();
      });
      return stopped || !fenced;
    } finally {
      log.leave(reader);
    }
  }
}

/** The last seq of `epoch` the journal's order holds without a gap (0: none). */
function heldThrough(order: Canonical, epoch: number): number {
  return order.epochs.get(epoch)?.lastSeq ?? 0;
}

/** Whether a reader at `position` has everything of `epoch` through `seq` already. */
function isPast(position: Position | undefined, epoch: number, seq: number): boolean {
  return position !== undefined && (position.epoch > epoch || (position.epoch === epoch && position.seq >= seq));
}

/** Whether the run at `position` in the order was still open there: true, false, or undefined when the order does not hold the position. */
function runOpenAt(order: Canonical, position: Position | undefined): boolean | undefined {
  if (position === undefined) return undefined;
  const at = order.entries.findIndex((entry) => entry.epoch === position.epoch && entry.seq === position.seq);
  for (let index = at; index >= 0; index -= 1) {
    const type = order.entries[index]?.event.type;
    if (type === 'RUN_STARTED') return true;
    if (type !== undefined && TERMINAL.has(type)) return false;
  }
  return undefined;
}

/**
 * Nothing of the execution is live and the journal holds the end of its newest run: the reader has
 * everything (delivered or filtered).
 */
function endedHere(document: ThreadDocument | undefined, executionId: string, order: Canonical): boolean {
  if (document?.activeRun && document.execution.executionId === executionId) return false;
  const last = order.entries.at(-1);
  return last === undefined || TERMINAL.has(last.event.type);
}

/** Waits `ms`, or less when the reader leaves; leaves no listener behind. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
