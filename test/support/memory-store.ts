/** In-memory ThreadStore for unit tests: the same compare-and-swap contract as the real drivers. */
import { StoreConflictError, type StoredDocument, type ThreadStore } from '../../lib/core/ports.js';
import { MemoryEventJournal } from './memory-journal.js';

export class MemoryThreadStore implements ThreadStore {
  readonly kind = 'memory' as const;
  readonly journal = new MemoryEventJournal();
  private readonly threads = new Map<string, { json: string; revision: number }>();

  async load(threadId: string): Promise<StoredDocument | undefined> {
    const entry = this.threads.get(threadId);
    return entry ? { document: JSON.parse(entry.json), revision: entry.revision } : undefined;
  }

  async save(threadId: string, document: unknown, expected: number): Promise<number> {
    const current = this.threads.get(threadId)?.revision ?? 0;
    if (current !== expected) throw new StoreConflictError();
    this.threads.set(threadId, { json: JSON.stringify(document), revision: expected + 1 });
    return expected + 1;
  }

  /** Test helper: the raw JSON text of a thread, as a driver would store it. */
  rawText(threadId: string): string | undefined {
    return this.threads.get(threadId)?.json;
  }
}
