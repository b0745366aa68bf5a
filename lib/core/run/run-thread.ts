/**
 * A run's handle on its thread document: every write is a compare-and-swap that first checks the
 * run still holds its lease (SPEC §4 "Busy": a run that lost its lease does not write again).
 * Writes from one run are serialised, and the last document read is reused as the expected
 * revision so a write costs one store request unless another instance wrote in between.
 */
import { StoreConflictError, type ThreadStore } from '../ports.js';
import type { ThreadDocument } from '../thread/document.js';
import { parseThreadDocument } from '../thread/parse-document.js';
import { isExecutionTerminal } from '../thread/run-transitions.js';

const MAX_CONFLICT_RETRIES = 8;

/** The run no longer holds the thread: another run took it over, or a cancel ended its execution. */
export class LeaseLostError extends Error {
  constructor(readonly cancelled: boolean) {
    super(cancelled ? 'The execution was cancelled.' : 'The run lost its lease.');
    this.name = 'LeaseLostError';
  }
}

export class RunThread {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: ThreadStore,
    readonly threadId: string,
    readonly leaseId: string,
    readonly executionId: string,
    private current: ThreadDocument,
    private revision: number,
  ) {}

  get document(): ThreadDocument {
    return this.current;
  }

  /** Applies `mutate` with compare-and-swap, re-reading and re-applying on conflict. */
  update(mutate: (document: ThreadDocument) => ThreadDocument): Promise<ThreadDocument> {
    const next = this.queue.then(() => this.apply(mutate));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Re-reads the document (e.g. to see whether an interrupt is pending at disconnect time). */
  async refresh(): Promise<ThreadDocument> {
    const stored = await this.store.load(this.threadId);
    if (!stored) throw new LeaseLostError(false);
    this.current = parseThreadDocument(stored.document, this.threadId);
    this.revision = stored.revision;
    return this.current;
  }

  private async apply(mutate: (document: ThreadDocument) => ThreadDocument): Promise<ThreadDocument> {
    for (let attempt = 0; ; attempt += 1) {
      this.assertLease(this.current);
      const next = mutate(this.current);
      try {
        this.revision = await this.store.save(this.threadId, next, this.revision);
        this.current = next;
        return next;
      } catch (error) {
        if (!(error instanceof StoreConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
        await this.refresh();
      }
    }
  }

  private assertLease(document: ThreadDocument): void {
    if (document.activeRun?.leaseId === this.leaseId) return;
    throw new LeaseLostError(this.wasCancelled(document));
  }

  /**
   * The run's execution was cancelled — still the thread's current execution, now terminal — as
   * opposed to rotated out by a run that took over an expired lease (SPEC §4 "Busy").
   */
  wasCancelled(document: ThreadDocument = this.current): boolean {
    return document.execution.executionId === this.executionId && isExecutionTerminal(document, this.executionId);
  }
}
