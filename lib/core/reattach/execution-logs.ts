/**
 * The event logs of the runs this instance produces right now, by execution (docs/design/reattach.md
 * "Words": producer): the one place a run's log is opened, found, closed and handed over. A
 * subscriber on this instance joins the producer's own log — no journal read, nothing lost between
 * a catch-up and the live records — and a takeover opens its log here like a run does. lib/http
 * only calls it; the app builds it at start-up (it holds no more than two maps until a run opens a
 * log, docs/architecture.md §6.3).
 */
import { errorFields } from '../error-fields.js';
import { EventLog, type EventLogOptions } from '../journal/event-log.js';
import type { Logger, ThreadStore } from '../ports.js';
import type { Resumable } from '../run/run-lifecycle.js';

/** Journal writes of content at most every 1.5 s: with a run's few other writes, under one a second (`npm run bench` counts them). */
export const JOURNAL_FLUSH_MS = 1_500;
/** One epoch's journal stops growing past this many bytes of events (docs/design/reattach.md "Cap"). */
export const JOURNAL_MAX_BYTES = 16 * 1024 * 1024;
/** An execution's journal is kept this long after its last run ended (docs/design/reattach.md "Invariants" 7). */
export const JOURNAL_RETENTION_MS = 15 * 60_000;

/** What a run's (or a takeover's) log is opened with. */
export type RunLogOptions = Omit<EventLogOptions, 'defer' | 'flushMs' | 'maxBytes' | 'clock'>;

/** The port lib/http calls. */
export interface ExecutionLogs {
  /** A new log for a run of the execution this instance produces, registered as the execution's. */
  open(options: RunLogOptions): EventLog;
  /** The log this instance produces for the execution, unless it was fenced (another producer continues the run). */
  find(executionId: string): EventLog | undefined;
  /** What a resumable run needs from its log, its store and the instance. */
  resumable(log: EventLog, store: ThreadStore, graceMs: number): Resumable;
  /** The run ended: its log is written, ended and let go; its journal's expiry is on the due list. */
  close(run: { threadId: string; executionId: string; log: EventLog; store: ThreadStore; logger: Logger }): Promise<void>;
  /** The instance stops: every resumable run live here hands itself over. */
  stopping(): void;
}

export class InstanceLogs implements ExecutionLogs {
  private readonly logs = new Map<string, EventLog>();
  private readonly handOvers = new Map<EventLog, () => void>();

  constructor(private readonly clock: () => number) {}

  open(options: RunLogOptions): EventLog {
    const log = new EventLog({ ...options, defer: setImmediate, flushMs: JOURNAL_FLUSH_MS, maxBytes: JOURNAL_MAX_BYTES, clock: this.clock });
    this.logs.set(options.executionId, log);
    return log;
  }

  find(executionId: string): EventLog | undefined {
    const log = this.logs.get(executionId);
    return log?.fenced ? undefined : log;
  }

  resumable(log: EventLog, store: ThreadStore, graceMs: number): Resumable {
    return {
      graceMs,
      journal: store.journal,
      watchReaders: (listener) => {
        log.onReaders = listener;
      },
      watchStopping: (handOver) => this.handOvers.set(log, handOver),
      flush: () => log.flush(),
    };
  }

  async close(run: { threadId: string; executionId: string; log: EventLog; store: ThreadStore; logger: Logger }): Promise<void> {
    this.handOvers.delete(run.log);
    try {
      await run.log.close();
    } finally {
      if (this.logs.get(run.executionId) === run.log) this.logs.delete(run.executionId);
    }
    await run.store.journal
      ?.schedule({ kind: 'expire', threadId: run.threadId, executionId: run.executionId, dueAt: this.clock() + JOURNAL_RETENTION_MS })
      .catch((error: unknown) => run.logger.warn('could not schedule the journal’s deletion', { error: errorFields(error) }));
  }

  stopping(): void {
    for (const handOver of [...this.handOvers.values()]) handOver();
  }
}

/** An event log of a stream that belongs to no execution's order (a guidance run, an observation): ids only, nothing journaled. */
export function unjournaledLog(streamId: string, logger: Logger): EventLog {
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
