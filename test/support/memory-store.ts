/** In-memory ThreadStore for unit tests: the same compare-and-swap contract as the real drivers. */
import { StoreConflictError, type StoredDocument, type ThreadRef, type ThreadStore } from '../../lib/core/ports.js';
import { storageKey } from '../../lib/core/thread/thread-address.js';
import { MemoryEventJournal } from './memory-journal.js';

export class MemoryThreadStore implements ThreadStore {
  readonly kind = 'memory' as const;
  readonly journal = new MemoryEventJournal();
  private readonly threads = new Map<string, { json: string; revision: number }>();

  // Keyed as the drivers key (docs/protocol.md §6.11), so a person's namespace is apart here too.
  async load(thread: ThreadRef): Promise<StoredDocument | undefined> {
    const entry = this.threads.get(storageKey(thread));
    return entry ? { document: JSON.parse(entry.json), revision: entry.revision } : undefined;
  }

  async save(thread: ThreadRef, document: unknown, expected: number): Promise<number> {
    const current = this.threads.get(storageKey(thread))?.revision ?? 0;
    if (current !== expected) throw new StoreConflictError();
    this.threads.set(storageKey(thread), { json: JSON.stringify(document), revision: expected + 1 });
    return expected + 1;
  }

  /** Test helper: the raw JSON text of a thread, as a driver would store it. */
  rawText(thread: ThreadRef): string | undefined {
    return this.threads.get(storageKey(thread))?.json;
  }
}
