/**
 * The contract every EventJournal keeps (docs/state-store.md "The event journal"), run against
 * each driver by its own test file: batches written once and read back in key order, a second
 * write of one key a conflict, reads after a key, executions and threads kept apart, deletion, and
 * the due list in time order.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JournalBatch } from '../../lib/core/journal/batch.js';
import { type EventJournal, StoreConflictError } from '../../lib/core/ports.js';
import { uniqueId } from '../support/fixtures.js';

function batch(executionId: string, epoch: number, firstSeq: number, count: number, start?: JournalBatch['start']): JournalBatch {
  const entries = Array.from({ length: count }, (_, index) => ({
    seq: firstSeq + index,
    k: firstSeq + index,
    event: { type: 'TEXT_MESSAGE_CONTENT' as const, timestamp: 1, messageId: 'm', delta: `delta ${firstSeq + index} 会话` },
  }));
  return start ? { executionId, epoch, start, entries } : { executionId, epoch, entries };
}

export function describeEventJournalContract(name: string, makeJournal: () => Promise<EventJournal>): void {
  describe(`EventJournal contract: ${name}`, () => {
    it('reads back every batch of an execution in (epoch, first seq) order, and only after a key when asked', async () => {
      const journal = await makeJournal();
      const [threadId, executionId] = [uniqueId('thread'), randomUUID()];
      const written = [
        batch(executionId, 2, 1, 2, { kind: 'run', runId: 'r2' }),
        batch(executionId, 1, 1, 3, { kind: 'run', runId: 'r1' }),
        batch(executionId, 1, 4, 1),
        batch(executionId, 2, 3, 2),
      ];
      for (const item of written) await journal.append(threadId, item);
      const all = await journal.read(threadId, executionId);
      expect(all.map((item) => [item.epoch, item.entries[0]?.seq])).toEqual([
        [1, 1],
        [1, 4],
        [2, 1],
        [2, 3],
      ]);
      expect(all[0]).toEqual(written[1]);
      const later = await journal.read(threadId, executionId, { epoch: 1, firstSeq: 4 });
      expect(later.map((item) => [item.epoch, item.entries[0]?.seq])).toEqual([
        [2, 1],
        [2, 3],
      ]);
    });

    it('writes a key once: a second batch with the same key is a conflict and changes nothing', async () => {
      const journal = await makeJournal();
      const [threadId, executionId] = [uniqueId('thread'), randomUUID()];
      const first = batch(executionId, 1, 1, 1, { kind: 'run', runId: 'r' });
      await journal.append(threadId, first);
      await expect(journal.append(threadId, batch(executionId, 1, 1, 5, { kind: 'run', runId: 'other' }))).rejects.toBeInstanceOf(StoreConflictError);
      expect(await journal.read(threadId, executionId)).toEqual([first]);
    });

    it('keeps executions and threads apart, reads nothing for an unknown one, and deletes one execution only', async () => {
      const journal = await makeJournal();
      const threadId = uniqueId('thread');
      const [one, two] = [randomUUID(), randomUUID()];
      await journal.append(threadId, batch(one, 1, 1, 1, { kind: 'run', runId: 'r' }));
      await journal.append(threadId, batch(two, 1, 1, 1, { kind: 'run', runId: 'r' }));
      await journal.append(`${threadId}-other`, batch(one, 1, 1, 2, { kind: 'run', runId: 'r' }));
      expect(await journal.read(uniqueId('thread'), one)).toEqual([]);
      await journal.remove(threadId, one);
      await journal.remove(threadId, one);
      expect(await journal.read(threadId, one)).toEqual([]);
      expect(await journal.read(threadId, two)).toHaveLength(1);
      expect((await journal.read(`${threadId}-other`, one))[0]?.entries).toHaveLength(2);
    });

    it('keeps a fork point: an epoch’s first batch with no entries', async () => {
      const journal = await makeJournal();
      const [threadId, executionId] = [uniqueId('thread'), randomUUID()];
      const fork: JournalBatch = { executionId, epoch: 3, start: { kind: 'takeover', runId: 'r', fromEpoch: 2, fromSeq: 7 }, entries: [] };
      await journal.append(threadId, fork);
      expect(await journal.read(threadId, executionId)).toEqual([fork]);
    });

    it('deletes up to an epoch only when told, keeping a newer run’s batches', async () => {
      const journal = await makeJournal();
      const [threadId, executionId] = [uniqueId('thread'), randomUUID()];
      await journal.append(threadId, batch(executionId, 1, 1, 2, { kind: 'run', runId: 'r1' }));
      await journal.append(threadId, batch(executionId, 2, 1, 1, { kind: 'run', runId: 'r2' }));
      await journal.append(threadId, batch(executionId, 3, 1, 1, { kind: 'run', runId: 'r3' }));
      await journal.remove(threadId, executionId, 2);
      expect((await journal.read(threadId, executionId)).map((read) => read.epoch)).toEqual([3]);
      await journal.remove(threadId, executionId, 3);
      expect(await journal.read(threadId, executionId)).toEqual([]);
    });

    it('keeps a fence, a full marker and when a batch was written, under the fenced seq', async () => {
      const journal = await makeJournal();
      const [threadId, executionId] = [uniqueId('thread'), randomUUID()];
      await journal.append(threadId, { ...batch(executionId, 1, 1, 2, { kind: 'run', runId: 'r' }), writtenAt: 1_700_000_000_000 });
      const fence: JournalBatch = { executionId, epoch: 1, entries: [], fenceSeq: 3, writtenAt: 1_700_000_000_001 };
      await journal.append(threadId, fence);
      // The producer's own next batch takes the fenced name: refused.
      await expect(journal.append(threadId, batch(executionId, 1, 3, 1))).rejects.toBeInstanceOf(StoreConflictError);
      const full: JournalBatch = { executionId, epoch: 2, entries: [], fenceSeq: 1, full: true };
      await journal.append(threadId, full);
      const read = await journal.read(threadId, executionId);
      expect(read.slice(1)).toEqual([fence, full]);
      expect(read[0]?.writtenAt).toBe(1_700_000_000_000);
    });

    it('lists due entries up to a time, earliest first, and forgets replaced and removed ones', async () => {
      const journal = await makeJournal();
      const base = 4_000_000_000_000 + Math.floor(Math.random() * 1e9);
      const threadId = uniqueId('thread');
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      await journal.schedule({ kind: 'expire', threadId, executionId: a, dueAt: base + 30 });
      await journal.schedule({ kind: 'detached', threadId, executionId: b, dueAt: base + 10 });
      await journal.schedule({ kind: 'detached', threadId, executionId: c, dueAt: base + 50 });
      const mine = (entries: Awaited<ReturnType<EventJournal['due']>>) => entries.filter((entry) => ([a, b, c] as string[]).includes(entry.executionId));
      expect(mine(await journal.due(base + 40, 100))).toEqual([
        { kind: 'detached', threadId, executionId: b, dueAt: base + 10 },
        { kind: 'expire', threadId, executionId: a, dueAt: base + 30 },
      ]);
      await journal.schedule({ kind: 'detached', threadId, executionId: b, dueAt: base + 60 }, { kind: 'detached', threadId, executionId: b, dueAt: base + 10 });
      await journal.unschedule({ kind: 'expire', threadId, executionId: a, dueAt: base + 30 });
      expect(mine(await journal.due(base + 100, 100)).map((entry) => [entry.executionId, entry.dueAt])).toEqual([
        [c, base + 50],
        [b, base + 60],
      ]);
      for (const entry of await journal.due(base + 100, 100)) await journal.unschedule(entry);
    });
  });
}
