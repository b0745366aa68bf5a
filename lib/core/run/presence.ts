/**
 * Whether a run still has a reader, and what that means for it (docs/protocol.md §6.15). With a
 * detach grace, a run whose last reader left goes on: its deadline is written to the thread
 * document (any instance may cancel it when the grace is over, lib/core/reattach/sweeper.ts) and
 * put on the journal's due list; a reader that comes back — on this instance, joining the run's
 * event log — clears it. Writes are queued one after another, in the order readers came and went.
 */
import { errorFields } from '../error-fields.js';
import type { DueEntry, EventJournal } from '../ports.js';
import { clearDetached, handOverRun, markDetached } from '../thread/detach-transitions.js';
import type { RunSession } from './run-session.js';

export class Presence {
  private detached: DueEntry | undefined;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly session: RunSession,
    private readonly graceMs: number,
    private readonly journal: EventJournal | undefined,
  ) {}

  /** The run's event log counts its readers (EventLog.onReaders). */
  readersChanged(count: number): void {
    if (this.stopped) return;
    if (count === 0) this.enqueue(() => this.detach());
    else this.enqueue(() => this.reattach());
  }

  /** Hands the run over now, whatever the readers (the instance is stopping: docs/architecture.md §6). */
  async detachNow(): Promise<void> {
    this.enqueue(() => this.detach(true));
    await this.queue;
  }

  /** The run ended (its last write released the lease): readers coming and going change nothing now. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
  }

  private enqueue(step: () => Promise<void>): void {
    this.queue = this.queue.then(step).catch((error: unknown) => this.session.deps.logger.warn('could not record whether the run has a reader', { error: errorFields(error) }));
  }

  private async detach(handOver = false): Promise<void> {
    const { clock, logger } = this.session.deps;
    const thread = this.session.thread;
    if (this.detached) {
      if (handOver) await thread.update((document) => handOverRun(document, this.detached?.dueAt ?? clock(), clock()));
      return;
    }
    const dueAt = clock() + this.graceMs;
    const entry: DueEntry = { kind: 'detached', threadId: thread.threadId, executionId: thread.executionId, dueAt };
    this.detached = entry;
    await thread.update((document) => (handOver ? handOverRun(document, dueAt, clock()) : markDetached(document, dueAt)));
    await this.journal?.schedule(entry);
    logger.info('run detached: its reader left', { until: dueAt });
  }

  private async reattach(): Promise<void> {
    const entry = this.detached;
    if (!entry) return;
    this.detached = undefined;
    await this.session.thread.update(clearDetached);
    await this.journal?.unschedule(entry);
    this.session.deps.logger.info('run reattached');
  }
}
