/** A new event log for an execution this instance produces (docs/protocol.md §6.15), registered with the instance. */
import { EventLog, type EventLogOptions } from '../core/journal/event-log.js';
import type { LiveLogs } from './live-logs.js';

/** Journal writes of content at most once a second (docs/protocol.md §6.15; `npm run bench` counts them). */
export const JOURNAL_FLUSH_MS = 1_000;
/** One epoch's journal stops growing past this (docs/state-store.md "The event journal"). */
export const JOURNAL_MAX_BYTES = 16 * 1024 * 1024;

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
