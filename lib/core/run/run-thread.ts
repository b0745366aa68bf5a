/**
 * A run's handle on its thread document: every write is a compare-and-swap (docs/architecture.md
 * §3) that first checks the run still holds its lease (docs/protocol.md §6.6: a run that lost its lease
 * does not write again). Writes from one run are serialised, and the last document read is reused
 * as the expected revision so a write costs one store request unless another instance wrote in
 * between.
 */
import type { ThreadStore } from '../ports.js';
import { compareAndSwap, readThread, type ThreadState } from '../thread/compare-and-swap.js';
import type { ThreadDocument } from '../thread/document.js';
import { isExecutionTerminal } from '../thread/run-transitions.js';

/** The run no longer holds the thread: another run took it over, or a cancel ended its execution. */
export class LeaseLostError extends Error {
  constructor(readonly cancelled: boolean) {
    super(cancelled ? 'The execution was cancelled.' : 'The run lost its lease.');
    this.name = 'LeaseLostError';
  }
}

export class RunThread {
  private queue: Promise<unknown> = Promise.resolve();
  /** The producer epoch this run journals under (docs/design/reattach.md "Epoch"). */
  readonly epoch: number;

  constructor(
    private readonly store: ThreadStore,
    readonly threadId: string,
    readonly leaseId: string,
    readonly executionId: string,
    private current: ThreadDocument,
    private revision: number,
  ) {
    this.epoch = current.execution.journalEpoch ?? 0;
  }

  /**
   * Another producer continues this run's execution under a newer epoch — a takeover, or the
   * sweeper ending it (docs/design/reattach.md "Fence"): this run says nothing more, to anyone.
   * Known from the last document read or written; a lost lease is seen at the next renewal.
   */
  superseded(): boolean {
    const { execution, activeRun } = this.current;
    return execution.executionId === this.executionId && (execution.journalEpoch ?? 0) > this.epoch && activeRun?.leaseId !== this.leaseId;
  }

  get document(): ThreadDocument {
    return this.current;
  }

  /** Applies `mutate` with compare-and-swap, re-reading, re-checking the lease and re-applying on conflict. */
  update(mutate: (document: ThreadDocument) => ThreadDocument): Promise<ThreadDocument> {
    const next = this.queue.then(() => this.apply(mutate));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Re-reads the document (e.g. to see whether an interrupt is pending at disconnect time). */
  async refresh(): Promise<ThreadDocument> {
    return this.adopt(await readThread(this.store, this.threadId));
  }

  private async apply(mutate: (document: ThreadDocument) => ThreadDocument): Promise<ThreadDocument> {
    const start = { document: this.current, revision: this.revision };
    const { state } = await compareAndSwap(
      this.store,
      this.threadId,
      (read) => {
        const current = this.adopt(read);
        this.assertLease(current);
        return { write: mutate(current), value: undefined };
      },
      { start },
    );
    return this.adopt(state);
  }

  /** Keeps what was read or written: the document runs see and the revision the next write expects. */
  private adopt(state: ThreadState): ThreadDocument {
    // The thread vanished from the store: whatever this run held is gone with it.
    if (!state.document) throw new LeaseLostError(false);
    this.current = state.document;
    this.revision = state.revision;
    return this.current;
  }

  private assertLease(document: ThreadDocument): void {
    if (document.activeRun?.leaseId === this.leaseId) return;
    throw new LeaseLostError(this.wasCancelled(document));
  }

  /**
   * The run's execution was cancelled — still the thread's current execution, now terminal — as
   * opposed to rotated out by a run that took over an expired lease (docs/protocol.md §6.6).
   */
  wasCancelled(document: ThreadDocument = this.current): boolean {
    return document.execution.executionId === this.executionId && isExecutionTerminal(document, this.executionId);
  }
}
