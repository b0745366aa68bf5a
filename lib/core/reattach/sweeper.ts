/**
 * The sweeper (docs/protocol.md §6.15 "Detach grace", "What is kept"): whichever instance runs it
 * next handles the due list — never a timer on the instance that detached a run, which FC may have
 * frozen or stopped.
 *
 * - A detached run whose grace is over, and that no reader reattached, is ended exactly as a
 *   disconnect ends one (§6.8): no interrupt pending → CancelTask and the execution ends; an
 *   interrupt pending → the task stays parked and the lease is released. Its journal gets the
 *   run's end — its open spans closed, then RUN_ERROR `CANCELLED` (or `A2A_UNAVAILABLE`) — as a last
 *   epoch, so that a reader arriving later sees the run end.
 * - A journal whose retention is over is deleted — unless its execution runs again meanwhile.
 */
import { errorFields } from '../error-fields.js';
import { type Language, translate } from '../i18n/catalogue.js';
import { canonicalOrder } from '../journal/canonical.js';
import { fenceEpoch } from '../journal/fence.js';
import { openSpansOfLastRun } from '../journal/open-spans.js';
import { type A2AKernel, type DueEntry, type EventJournal, type Logger, StoreError, type ThreadStore } from '../ports.js';
import { compareAndSwap } from '../thread/compare-and-swap.js';
import { detachedPast } from '../thread/detach-transitions.js';
import type { ThreadDocument } from '../thread/document.js';
import { cancelCurrentExecution } from '../thread/interrupt-transitions.js';
import { threadStoreAt } from '../thread/thread-address.js';
import { eventFactory } from '../translate/events.js';
import { translatorFor } from '../translate/run-translator.js';

export interface SweepDeps {
  store: ThreadStore;
  kernel: A2AKernel;
  clock: () => number;
  logger: Logger;
  language: Language;
  retentionMs: number;
}

/** Entries looked at per sweep; the rest wait for the next one. */
const PER_SWEEP = 20;
const CANCEL_MS = 5_000;
/** A due entry that could not be handled is tried again this much later, so it never blocks the head of the list. */
export const RETRY_DUE_MS = 30_000;

/** Handles what is due now; resolves with how many entries it handled. */
export async function sweep(deps: SweepDeps): Promise<number> {
  const journal = deps.store.journal;
  if (!journal) return 0;
  const due = await journal.due(deps.clock(), PER_SWEEP);
  for (const entry of due) {
    try {
      // The entry's thread as its namespace addresses it (docs/protocol.md §6.11): a person's thread
      // is read, written and journaled where their requests put it, and entries scheduled from here
      // keep the namespace (lib/core/thread/thread-address.ts).
      const store = threadStoreAt(deps.store, entry.namespace);
      const threadJournal = store.journal ?? journal;
      if (entry.kind === 'detached') await endDetached({ ...deps, store }, threadJournal, entry);
      else await expireJournal({ ...deps, store }, threadJournal, entry);
    } catch (error) {
      deps.logger.warn('could not handle a due entry; it is tried again later', { kind: entry.kind, executionId: entry.executionId, error: errorFields(error) });
      await journal.schedule({ ...entry, dueAt: deps.clock() + RETRY_DUE_MS }, entry).catch(() => undefined);
    }
  }
  return due.length;
}

type DetachedOutcome =
  /** The run's deadline moved (a reader follows it from another instance): its entry moves too. */
  | { kind: 'later'; until: number }
  /** This sweep ended the run. */
  | { kind: 'ended'; pending: boolean; taskId: string | null; runId: string; epoch: number }
  /** Nothing to end now: a reader came back, or the run ended — maybe by an earlier sweep whose end is still owed. */
  | { kind: 'settled'; document: ThreadDocument | undefined };

/**
 * Ends a detached run whose grace is over, idempotently: the compare-and-swap decides once, and a
 * sweep that failed after it (CancelTask, the journal) is completed by the next one, which finds
 * the end owed (endOwed) — its entry is only removed once all of it is done.
 */
async function endDetached(deps: SweepDeps, journal: EventJournal, entry: DueEntry): Promise<void> {
  const now = deps.clock();
  const outcome = await compareAndSwap<DetachedOutcome>(deps.store, entry.threadId, ({ document }) => {
    const until = document?.activeRun?.detachedUntil;
    if (document && document.execution.executionId === entry.executionId && until !== undefined && until > now) return { value: { kind: 'later', until } };
    if (!document || !detachedPast(document, entry.executionId, now)) return { value: { kind: 'settled', document } };
    const pending = document.execution.pending.length > 0;
    const ended: ThreadDocument = pending ? { ...document, activeRun: null } : cancelCurrentExecution(document);
    const epoch = (document.execution.journalEpoch ?? 0) + 1;
    return {
      write: { ...ended, execution: { ...ended.execution, journalEpoch: epoch } },
      value: { kind: 'ended', pending, taskId: document.execution.taskId, runId: document.activeRun?.runId ?? '', epoch },
    };
  });
  const value = outcome.value;
  if (value.kind === 'later') {
    await journal.schedule({ ...entry, dueAt: value.until }, entry);
    return;
  }
  const ended = value.kind === 'ended' ? value : await endOwed(journal, entry, value.document);
  if (ended) {
    deps.logger.info('detached run ended: no reader came back within its grace', { threadId: entry.threadId, executionId: entry.executionId, cancelled: !ended.pending });
    if (!ended.pending && ended.taskId) {
      await deps.kernel
        .cancelTask(ended.taskId, { signal: AbortSignal.timeout(CANCEL_MS) })
        .catch((error: unknown) => deps.logger.warn('CancelTask failed', { error: errorFields(error) }));
    }
    await journalTheEnd(deps, journal, entry, ended);
    await journal.schedule({ kind: 'expire', threadId: entry.threadId, executionId: entry.executionId, dueAt: now + deps.retentionMs });
  }
  await journal.unschedule(entry);
}

/**
 * An earlier sweep's end whose journal part is still owed: the document shows the execution idle
 * under an epoch no batch is written for — only the sweeper's compare-and-swap moves the epoch
 * without a producer writing its first batch at once.
 */
async function endOwed(journal: EventJournal, entry: DueEntry, document: ThreadDocument | undefined): Promise<Extract<DetachedOutcome, { kind: 'ended' }> | undefined> {
  if (!document || document.activeRun || document.execution.executionId !== entry.executionId) return undefined;
  const epoch = document.execution.journalEpoch ?? 0;
  if (epoch < 1) return undefined;
  const batches = await journal.read(entry.threadId, entry.executionId);
  if (batches.length === 0 || batches.some((batch) => batch.epoch >= epoch && batch.fenceSeq === undefined)) return undefined;
  const order = canonicalOrder(batches);
  const last = order.entries.at(-1)?.event;
  if (!last || TERMINAL.has(last.type)) return undefined;
  const runStart = order.entries.findLast((item) => item.event.type === 'RUN_STARTED')?.event;
  const runId = runStart?.type === 'RUN_STARTED' ? runStart.runId : '';
  const pending = document.execution.pending.length > 0;
  return { kind: 'ended', pending, taskId: pending ? null : document.execution.lastTaskId, runId, epoch };
}

const TERMINAL = new Set(['RUN_FINISHED', 'RUN_ERROR']);

/**
 * The run's end as its last epoch: its open spans closed, then its RUN_ERROR — behind a fence, so
 * a producer still running cannot journal past it (fence.ts). Written once: a batch already there
 * is this end, written by an earlier sweep.
 */
async function journalTheEnd(deps: SweepDeps, journal: EventJournal, entry: DueEntry, ended: { pending: boolean; runId: string; epoch: number }): Promise<void> {
  const order = await fenceEpoch(journal, entry.threadId, entry.executionId, ended.epoch - 1, deps.clock);
  const fork = order.entries.at(-1);
  if (!fork || TERMINAL.has(fork.event.type)) return;
  const make = eventFactory(deps.clock);
  const code = ended.pending ? 'A2A_UNAVAILABLE' : 'CANCELLED';
  // Closed as the run itself would have closed them: its translator, knowing what it left open.
  const translator = translatorFor(
    { textDigests: [], pipelineSequence: 0, pipelineOpenSteps: [] },
    // Closing names no new message or call: newId is never asked.
    { make, runId: ended.runId, threadId: entry.threadId, newId: () => entry.executionId },
  );
  translator.restore(openSpansOfLastRun(order), fork.k);
  const events = [...translator.closeSpans(), make('RUN_ERROR', { code, message: translate(ended.pending ? 'a2aUnavailable' : 'cancelled', deps.language) })];
  try {
    await journal.append(entry.threadId, {
      executionId: entry.executionId,
      epoch: ended.epoch,
      start: { kind: 'takeover', runId: ended.runId, fromEpoch: fork.epoch, fromSeq: fork.seq },
      entries: events.map((event, index) => ({ seq: index + 1, k: fork.k, event })),
      writtenAt: deps.clock(),
    });
  } catch (error) {
    if (!(error instanceof StoreError && error.kind === 'conflict')) throw error;
  }
}

/**
 * A journal's retention is over — counted from its newest batch, the execution's last run end —
 * and nothing of it runs: it is deleted, up to the newest epoch seen, so a run admitted meanwhile
 * keeps its own. Otherwise the entry moves to when it may be over.
 */
async function expireJournal(deps: SweepDeps, journal: EventJournal, entry: DueEntry): Promise<void> {
  const now = deps.clock();
  // The journal first, then the document: a run admitted before the read is live in the document;
  // one admitted after it has no batch in what is deleted (only epochs read are).
  const batches = await journal.read(entry.threadId, entry.executionId);
  const document = (await deps.store.load(entry.threadId))?.document as ThreadDocument | undefined;
  const live = document?.activeRun !== undefined && document?.activeRun !== null && document.execution?.executionId === entry.executionId;
  const newest = Math.max(0, ...batches.map((batch) => batch.writtenAt ?? 0));
  const keepUntil = live ? now + deps.retentionMs : newest + deps.retentionMs;
  if (keepUntil > now) {
    await journal.schedule({ ...entry, dueAt: keepUntil }, entry);
    return;
  }
  if (batches.length > 0) await journal.remove(entry.threadId, entry.executionId, Math.max(...batches.map((batch) => batch.epoch)));
  await journal.unschedule(entry);
}
