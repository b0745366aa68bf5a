/**
 * The fence (docs/design/reattach.md "Fence", issue 26 "Cost"): a takeover reads the journal once.
 * Given the batches its reader's admission already read, the fence reads only what came after them
 * — and still forks after a batch the replaced producer landed meanwhile.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileEventJournal } from '../../lib/adapters/file-store/file-journal.js';
import type { JournalBatch } from '../../lib/core/journal/batch.js';
import { fenceEpoch } from '../../lib/core/journal/fence.js';
import type { BatchKey, EventJournal } from '../../lib/core/ports.js';

const THREAD = 'thread-fence';
const EXECUTION = 'execution-fence';

function batch(firstSeq: number, count: number): JournalBatch {
  return {
    executionId: EXECUTION,
    epoch: 1,
    ...(firstSeq === 1 ? { start: { kind: 'run' as const, runId: 'run-1' } } : {}),
    entries: Array.from({ length: count }, (_, index) => ({
      seq: firstSeq + index,
      k: 0,
      event: { type: 'CUSTOM', name: 'step', value: firstSeq + index, timestamp: 1 } as JournalBatch['entries'][number]['event'],
    })),
    writtenAt: 1,
  };
}

/** The journal, with every read's `after` kept. */
async function countedJournal(): Promise<{ journal: EventJournal; reads: Array<BatchKey | undefined> }> {
  const file = new FileEventJournal(await mkdtemp(join(tmpdir(), 'agui-fence-')));
  const reads: Array<BatchKey | undefined> = [];
  const journal: EventJournal = Object.create(file) as EventJournal;
  journal.read = (threadId, executionId, after) => {
    reads.push(after);
    return file.read(threadId, executionId, after);
  };
  return { journal, reads };
}

describe('fencing a replaced epoch', () => {
  it('reads only the batches after those its caller already read', async () => {
    const { journal, reads } = await countedJournal();
    await journal.append(THREAD, batch(1, 3));
    await journal.append(THREAD, batch(4, 2));
    const known = await journal.read(THREAD, EXECUTION);
    // The replaced producer lands one more batch between the reader's read and the fence.
    await journal.append(THREAD, batch(6, 1));
    reads.length = 0;
    const order = await fenceEpoch(journal, THREAD, EXECUTION, 1, () => 2, known);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({ epoch: 1, firstSeq: 4 });
    // The fork is after the late batch, and the fence is where the next one would have gone.
    expect(order.entries.at(-1)?.seq).toBe(6);
    const after = await journal.read(THREAD, EXECUTION);
    expect(after.at(-1)).toMatchObject({ epoch: 1, fenceSeq: 7, entries: [] });
  });

  it('without known batches, reads the whole journal once', async () => {
    const { journal, reads } = await countedJournal();
    await journal.append(THREAD, batch(1, 2));
    const order = await fenceEpoch(journal, THREAD, EXECUTION, 1, () => 2);
    expect(reads).toEqual([undefined]);
    expect(order.entries.map((entry) => entry.seq)).toEqual([1, 2]);
  });
});
