/** In-memory EventJournal for in-process tests: the same contract as the file and OSS journals. */
import { type JournalBatch, parseBatch, serializeBatch } from '../../lib/core/journal/batch.js';
import { batchKeyAfter, batchKeyOf, batchName, dueName } from '../../lib/core/journal/journal-names.js';
import { type BatchKey, type DueEntry, type EventJournal, StoreConflictError, type ThreadRef } from '../../lib/core/ports.js';
import { storageKey } from '../../lib/core/thread/thread-address.js';

export class MemoryEventJournal implements EventJournal {
  private readonly batches = new Map<string, Map<string, string>>();
  private readonly dueEntries = new Map<string, DueEntry>();

  async append(threadId: ThreadRef, batch: JournalBatch): Promise<void> {
    const execution = this.execution(threadId, batch.executionId);
    const name = batchName(batchKeyOf(batch));
    if (execution.has(name)) throw new StoreConflictError();
    execution.set(name, serializeBatch(batch));
  }

  async read(threadId: ThreadRef, executionId: string, after?: BatchKey): Promise<JournalBatch[]> {
    const execution = this.batches.get(`${storageKey(threadId)}\u0000${executionId}`) ?? new Map<string, string>();
    return [...execution.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, text]) => parseBatch(text, executionId))
      .filter((batch): batch is JournalBatch => batch !== undefined && batchKeyAfter(batchKeyOf(batch), after));
  }

  async remove(threadId: ThreadRef, executionId: string, throughEpoch?: number): Promise<void> {
    const key = `${storageKey(threadId)}\u0000${executionId}`;
    if (throughEpoch === undefined) {
      this.batches.delete(key);
      return;
    }
    const execution = this.batches.get(key);
    for (const [name, text] of execution ?? []) {
      const batch = parseBatch(text, executionId);
      if (batch === undefined || batch.epoch <= throughEpoch) execution?.delete(name);
    }
  }

  async schedule(entry: DueEntry, replacing?: DueEntry): Promise<void> {
    this.dueEntries.set(dueName(entry), { ...entry });
    if (replacing && dueName(replacing) !== dueName(entry)) await this.unschedule(replacing);
  }

  async unschedule(entry: DueEntry): Promise<void> {
    this.dueEntries.delete(dueName(entry));
  }

  async due(now: number, limit: number): Promise<DueEntry[]> {
    return [...this.dueEntries.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, entry]) => entry)
      .filter((entry) => entry.dueAt <= now)
      .slice(0, limit);
  }

  private execution(threadId: ThreadRef, executionId: string): Map<string, string> {
    const key = `${storageKey(threadId)}\u0000${executionId}`;
    let execution = this.batches.get(key);
    if (!execution) {
      execution = new Map();
      this.batches.set(key, execution);
    }
    return execution;
  }
}
