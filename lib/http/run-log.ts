/** A new event log for an execution this instance produces (docs/protocol.md §6.15), registered with the instance. */
import { errorFields } from '../core/error-fields.js';
import { EventLog, type EventLogOptions } from '../core/journal/event-log.js';
import type { Logger, ThreadStore } from '../core/ports.js';
import type { Resumable } from '../core/run/run-lifecycle.js';
import type { LiveLogs } from './live-logs.js';

/** Journal writes of content at most every 1.5 s: with a run's few other writes, under one a second (docs/protocol.md §6.15; `npm run bench` counts them). */
export const JOURNAL_FLUSH_MS = 1_500;
/** One epoch's journal stops growing past this (docs/state-store.md "The event journal"). */
export const JOURNAL_MAX_BYTES = 16 * 1024 * 1024;
/** A run's journal is kept this long after the run ended (docs/protocol.md §6.15 "What is kept"). */
export const JOURNAL_RETENTION_MS = 15 * 60_000;

export function openRunLog(liveLogs: LiveLogs, options: Omit<EventLogOptions, 'defer' | 'flushMs' | 'maxBytes'>): EventLog {
  const log = new EventLog({ ...options, defer: setImmediate, flushMs: JOURNAL_FLUSH_MS, maxBytes: JOURNAL_MAX_BYTES });
  liveLogs.add(options.executionId, log);
  return log;
}

/** An event log of a stream that belongs to no execution's order (a guidance run): ids only, nothing journaled. */
export function unjournaledLog(streamId: string, logger: EventLogOptions['logger']): EventLog {
  return new EventLog({
    journal: undefined,
    threadId: '',
    executionId: streamId,
    epoch: 0,
    start: { kind: 'run', runId: streamId },
    defer: setImmediate,
    flushMs: JOURNAL_FLUSH_MS,
    maxBytes: 0,
    logger,
  });
}

/** What a resumable run needs from its log, its store and the instance (docs/protocol.md §6.15). */
export function resumableRun(log: EventLog, store: ThreadStore, graceMs: number, liveLogs: LiveLogs): Resumable {
  return {
    graceMs,
    journal: store.journal,
    watchReaders: (listener) => {
      log.onReaders = listener;
    },
    watchStopping: (handOver) => liveLogs.whenStopping(log, handOver),
    flush: () => log.flush(),
  };
}

/**
 * The run ended (its own caller's, or a takeover's): its log is written, ended and let go by the
 * instance, and its execution's journal is deleted once nobody can still want its tail (the
 * sweeper, docs/protocol.md §6.15).
 */
export async function endRunLog(
  liveLogs: LiveLogs,
  store: ThreadStore,
  run: { threadId: string; executionId: string; log: EventLog },
  clock: () => number,
  logger: Logger,
): Promise<void> {
  await liveLogs.close(run.executionId, run.log);
  await store.journal
    ?.schedule({ kind: 'expire', threadId: run.threadId, executionId: run.executionId, dueAt: clock() + JOURNAL_RETENTION_MS })
    .catch((error: unknown) => logger.warn('could not schedule the journal’s deletion', { error: errorFields(error) }));
}
