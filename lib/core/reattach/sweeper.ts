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
import { openSpansOfLastRun } from '../journal/open-spans.js';
import type { A2AKernel, DueEntry, EventJournal, Logger, ThreadStore } from '../ports.js';
import { compareAndSwap } from '../thread/compare-and-swap.js';
import { detachedPast } from '../thread/detach-transitions.js';
import type { ThreadDocument } from '../thread/document.js';
import { cancelCurrentExecution } from '../thread/interrupt-transitions.js';
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

/** Handles what is due now; resolves with how many entries it handled. */
export async function sweep(deps: SweepDeps): Promise<number> {
  const journal = deps.store.journal;
  if (!journal) return 0;
  const due = await journal.due(deps.clock(), PER_SWEEP);
  for (const entry of due) {
    try {
      if (entry.kind === 'detached') await endDetached(deps, journal, entry);
      else await expireJournal(deps, journal, entry);
    } catch (error) {
      deps.logger.warn('could not handle a due entry; the next sweep tries again', { kind: entry.kind, executionId: entry.executionId, error: errorFields(error) });
    }
  }
  return due.length;
}

async function endDetached(deps: SweepDeps, journal: EventJournal, entry: DueEntry): Promise<void> {
  const now = deps.clock();
  const outcome = await compareAndSwap(deps.store, entry.threadId, ({ document }) => {
    if (!document || !detachedPast(document, entry.executionId, now)) return { value: undefined };
    const pending = document.execution.pending.length > 0;
    const ended: ThreadDocument = pending ? { ...document, activeRun: null } : cancelCurrentExecution(document);
    const epoch = (document.execution.journalEpoch ?? 0) + 1;
    return {
      write: { ...ended, execution: { ...ended.execution, journalEpoch: epoch } },
      value: { pending, taskId: document.execution.taskId, runId: document.activeRun?.runId ?? '', epoch },
    };
  });
  const ended = outcome.value;
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

/** The run's end as its last epoch: its open spans closed, then its RUN_ERROR. */
async function journalTheEnd(deps: SweepDeps, journal: EventJournal, entry: DueEntry, ended: { pending: boolean; runId: string; epoch: number }): Promise<void> {
  const order = canonicalOrder(await journal.read(entry.threadId, entry.executionId));
  const fork = order.entries.at(-1);
  if (!fork || fork.event.type === 'RUN_FINISHED' || fork.event.type === 'RUN_ERROR') return;
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
  await journal.append(entry.threadId, {
    executionId: entry.executionId,
    epoch: ended.epoch,
    start: { kind: 'takeover', runId: ended.runId, fromEpoch: fork.epoch, fromSeq: fork.seq },
    entries: events.map((event, index) => ({ seq: index + 1, k: fork.k, event })),
  });
}

async function expireJournal(deps: SweepDeps, journal: EventJournal, entry: DueEntry): Promise<void> {
  const document = (await deps.store.load(entry.threadId))?.document as ThreadDocument | undefined;
  // The execution runs again (a resume): its journal is still wanted; its own end schedules the next expiry.
  if (document?.activeRun && document.execution?.executionId === entry.executionId) {
    await journal.schedule({ ...entry, dueAt: deps.clock() + deps.retentionMs }, entry);
    return;
  }
  await journal.remove(entry.threadId, entry.executionId);
  await journal.unschedule(entry);
}
