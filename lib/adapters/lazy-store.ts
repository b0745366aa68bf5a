/**
 * The thread store drivers, imported with the first request that uses a store, not at start-up
 * (docs/architecture.md §6.3): a driver brings node:crypto, the file system's promises or the OSS
 * client with it, none of which `GET /health` needs. Until its driver is loaded, a request gets a
 * stand-in that loads it on its first call; once loaded, every request gets the driver's own store.
 */

import type { JournalBatch } from '../core/journal/batch.js';
import { onceUntilFailure } from '../core/once-until-failure.js';
import type { BatchKey, DueEntry, EventJournal, StoredDocument, ThreadRef, ThreadStore } from '../core/ports.js';

/** A store whose driver comes from `open()` on the first call. */
class LoadingStore implements ThreadStore {
  private store: ThreadStore | undefined;
  /** The driver's event journal, reached the same way (docs/protocol.md §6.15). */
  readonly journal: EventJournal;

  constructor(
    readonly kind: ThreadStore['kind'],
    private readonly open: () => Promise<ThreadStore>,
  ) {
    this.journal = new LoadingJournal(async () => {
      const journal = (await this.driver()).journal;
      if (!journal) throw new Error('this store keeps no event journal');
      return journal;
    });
  }

  async load(thread: ThreadRef): Promise<StoredDocument | undefined> {
    return (await this.driver()).load(thread);
  }

  async save(thread: ThreadRef, document: unknown, expected: number): Promise<number> {
    return (await this.driver()).save(thread, document, expected);
  }

  cached(thread: ThreadRef): StoredDocument | undefined {
    return this.store?.cached?.(thread);
  }

  private readonly driver = onceUntilFailure(async () => {
    this.store = await this.open();
    return this.store;
  });
}

class LoadingJournal implements EventJournal {
  constructor(private readonly journal: () => Promise<EventJournal>) {}

  async append(thread: ThreadRef, batch: JournalBatch): Promise<void> {
    return (await this.journal()).append(thread, batch);
  }

  async read(thread: ThreadRef, executionId: string, after?: BatchKey): Promise<JournalBatch[]> {
    return (await this.journal()).read(thread, executionId, after);
  }

  async remove(thread: ThreadRef, executionId: string, throughEpoch?: number): Promise<void> {
    return (await this.journal()).remove(thread, executionId, throughEpoch);
  }

  async schedule(entry: DueEntry, replacing?: DueEntry): Promise<void> {
    return (await this.journal()).schedule(entry, replacing);
  }

  async unschedule(entry: DueEntry): Promise<void> {
    return (await this.journal()).unschedule(entry);
  }

  async due(now: number, limit: number): Promise<DueEntry[]> {
    return (await this.journal()).due(now, limit);
  }
}

/**
 * `storeFor` over a driver module loaded on first use: `load()` imports it and builds what answers
 * `storeFor(request)` (a provider for OSS, one store for files).
 */
export function lazyStoreFor(kind: ThreadStore['kind'], load: () => Promise<(request?: Request) => ThreadStore>): (request?: Request) => ThreadStore {
  let loaded: ((request?: Request) => ThreadStore) | undefined;
  const ready = onceUntilFailure(async () => {
    loaded = await load();
    return loaded;
  });
  return (request) => loaded?.(request) ?? new LoadingStore(kind, async () => (await ready())(request));
}
