/**
 * The fence (docs/design/reattach.md "Fence"): before a new producer of an execution — a takeover,
 * or the sweeper ending a detached run — says anything, it writes a batch under the name the
 * replaced epoch's next batch would have. Batches are written once, so the old producer, should it
 * still be running (frozen, or slow to learn its lease is gone), can journal nothing past the fork:
 * its next write is refused and it stops (EventLog.fence). A batch of its that landed first moves
 * the fence: the journal is read again and the fork is taken after it.
 */
import { type EventJournal, StoreError } from '../ports.js';
import type { JournalBatch } from './batch.js';
import { type Canonical, canonicalOrder } from './canonical.js';
import { batchKeyOf } from './journal-names.js';

/** Enough for any producer's writes in flight: each lost race means one more of its batches landed. */
const MAX_ATTEMPTS = 20;

/**
 * Fences `epoch` (the one being replaced) and resolves with the journal's order as it stands behind
 * the fence — the order the new producer forks from. `known`: batches the caller already read, in
 * key order (a reader's admission read them): only what came after them is read, so a takeover reads
 * the journal once, and a lost race reads only the batches that won it.
 */
export async function fenceEpoch(
  journal: EventJournal,
  threadId: string,
  executionId: string,
  epoch: number,
  clock: () => number,
  known: readonly JournalBatch[] = [],
): Promise<Canonical> {
  const batches = [...known];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const last = batches.at(-1);
    batches.push(...(await journal.read(threadId, executionId, last ? batchKeyOf(last) : undefined)));
    const order = canonicalOrder(batches);
    if (epoch < 1) return order;
    const fenceSeq = (order.epochs.get(epoch)?.lastSeq ?? 0) + 1;
    // Only the compare-and-swap's winner fences an epoch: a fence there is its own (a write that timed out and landed, or a retried sweep).
    if (batches.some((batch) => batch.epoch === epoch && batch.fenceSeq === fenceSeq)) return order;
    const fence: JournalBatch = { executionId, epoch, entries: [], fenceSeq, writtenAt: clock() };
    try {
      await journal.append(threadId, fence);
      return order;
    } catch (error) {
      if (!(error instanceof StoreError && error.kind === 'conflict')) throw error;
    }
  }
  throw new StoreError('unavailable', 'The replaced producer kept writing to the journal; the fence could not be placed.');
}
