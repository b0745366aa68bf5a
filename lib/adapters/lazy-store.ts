/**
 * The thread store drivers, imported with the first request that uses a store, not at start-up
 * (docs/architecture.md §6.3): a driver brings node:crypto, the file system's promises or the OSS
 * client with it, none of which `GET /health` needs. Until its driver is loaded, a request gets a
 * stand-in that loads it on its first call; once loaded, every request gets the driver's own store.
 */
import { onceUntilFailure } from '../core/once-until-failure.js';
import type { StoredDocument, ThreadStore } from '../core/ports.js';

/** A store whose driver comes from `open()` on the first call. */
class LoadingStore implements ThreadStore {
  private store: ThreadStore | undefined;

  constructor(
    readonly kind: ThreadStore['kind'],
    private readonly open: () => Promise<ThreadStore>,
  ) {}

  async load(threadId: string): Promise<StoredDocument | undefined> {
    return (await this.driver()).load(threadId);
  }

  async save(threadId: string, document: unknown, expected: number): Promise<number> {
    return (await this.driver()).save(threadId, document, expected);
  }

  cached(threadId: string): StoredDocument | undefined {
    return this.store?.cached?.(threadId);
  }

  private readonly driver = onceUntilFailure(async () => {
    this.store = await this.open();
    return this.store;
  });
}

/**
 * `storeFor` over a driver module loaded on first use: `load()` imports it and builds what answers
 * `storeFor(request)` (a provider for OSS, one store for files).
 */
export function lazyStoreFor(kind: ThreadStore['kind'], load: () => Promise<(request: Request) => ThreadStore>): (request: Request) => ThreadStore {
  let loaded: ((request: Request) => ThreadStore) | undefined;
  const ready = onceUntilFailure(async () => {
    loaded = await load();
    return loaded;
  });
  return (request) => loaded?.(request) ?? new LoadingStore(kind, async () => (await ready())(request));
}
